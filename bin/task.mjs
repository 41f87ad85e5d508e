#!/usr/bin/env node
// The set-up commands of a fresh checkout (package.json scripts `npm run demo`, `npm test`): installs the pinned
// packages with `npm ci` when they are missing, then runs the deno.json task of that name with the pinned Deno in
// the package folder, as `deno task NAME` would, and ends as it ends.
import { denoExecutable, ensureInstalled, PACKAGE_DIR, runForwarding } from "./_deno.mjs";

const [name, ...rest] = process.argv.slice(2);
if (name === undefined) {
  process.stderr.write("usage: node bin/task.mjs TASK [args]\n");
  process.exit(2);
}
// The tests need the development packages too (fast-check, playwright-core, ...): every pinned package is checked.
if (!ensureInstalled((line) => process.stderr.write(`${line}\n`), true)) process.exit(3);
runForwarding(denoExecutable(), ["task", "-q", name, ...rest], { cwd: PACKAGE_DIR });
