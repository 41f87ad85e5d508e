#!/usr/bin/env node
// `strata-bench`: the command npm installs (package.json "bin"). It starts the pinned Deno from this package's
// node_modules with the named permission set deno.json gives the command (`run`, `run:profile` when an engine
// profile is started, `report:write` for --seal, --svg and a saved FILE.jsonl, ...), from the current folder, and
// ends as the command ends. Installs the pinned packages first when they are missing from a checkout.
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { denoExecutable, ensureInstalled, runForwarding, runTaskArgv, sourceDir } from "./_deno.mjs";

/** The deno.json task whose permission set `strata-bench <args>` runs under. */
export function taskFor(args) {
  const [command, sub] = args;
  const has = (...flags) => args.some((a) => flags.some((f) => a === f || a.startsWith(`${f}=`)));
  const profile = has("--profile", "--baseline-profile", "--candidate-profile");
  switch (command) {
    case "run":
    case "load":
    case "compare":
      return profile ? `${command}:profile` : command;
    case "report":
      // A saved FILE.jsonl is reported into CSV, HTML and a curve: that writes, as --seal and --svg do.
      return has("--seal", "--svg") || args.slice(1).some((a) => !a.startsWith("-") && /\.jsonl$/i.test(a))
        ? "report:write"
        : "report";
    case "site":
      return sub === "build" || sub === "serve" || sub === "verify" ? `site:${sub}` : "report";
    case "demo":
      // --site makes a scratch git repository for its throwaway site.
      return has("--site") ? "demo:site" : command;
    case "probe":
    case "mock":
    case "fixtures":
    case "approved":
    case "submit":
      return command;
    default:
      // --help, --version, a typo: the read-only set prints the help or the error.
      return "report";
  }
}

/**
 * The folders the person named with --out (`--out DIR` or `--out=DIR`; also demo's --site), absolute: the command
 * may write there as well as into the current folder's results. `approved --repo DIR` may write that repository's
 * `bench/` (the manifest) and nothing else of it; `submit --repo DIR` its `bench/` (the result folder) and `.git/`
 * (the pull request body); `approved init DIR` that DIR, `approved check --summary FILE` FILE's folder. A comma would split Deno's permission list, so such a name is
 * left to the command's own permission error.
 */
export function outFolders(args, cwd) {
  const named = [];
  const flags = args[0] === "approved"
    ? [["--repo", "bench"], ["--summary", ".."]]
    : args[0] === "submit"
    ? [["--repo", "bench"], ["--repo", ".git"]]
    : [["--out", ""], ["--site", ""]];
  // `approved init DIR` writes the new repository, and only it.
  if (args[0] === "approved" && args[1] === "init" && args[2] !== undefined && !args[2].startsWith("-")) {
    named.push(args[2]);
  }
  args.forEach((a, i) => {
    for (const [flag, under] of flags) {
      const value = a === flag && i + 1 < args.length
        ? args[i + 1]
        : a.startsWith(`${flag}=`)
        ? a.slice(flag.length + 1)
        : undefined;
      if (value !== undefined && value !== "") named.push(under === "" ? value : join(value, under));
    }
  });
  return named.filter((p) => !p.includes(",")).map((p) => resolve(cwd, p));
}

/**
 * `load --workers N` starts N copies of itself: the one run permission it gets is for this very Deno executable
 * (its real path, as Deno.execPath() names it); every other command, and load without --workers, runs nothing.
 */
export function workerRunFlags(args, deno) {
  const workers = args[0] === "load" && args.some((a) => a === "--workers" || a.startsWith("--workers="));
  return workers ? [`--allow-run=${realpathSync(deno)}`] : [];
}

const args = process.argv.slice(2);
if (!ensureInstalled((line) => process.stderr.write(`${line}\n`))) process.exit(3);
let argv;
try {
  // fixtures build writes the toolkit's own bundle: its set's paths stay the package's.
  argv = runTaskArgv(
    taskFor(args),
    process.env.HOME ?? homedir(),
    args[0] !== "fixtures",
    sourceDir(),
    outFolders(args, process.cwd()),
  );
} catch (error) {
  process.stderr.write(`strata-bench: ${error.message}\n`);
  process.exit(3);
}
// The task names the command after mod.ts ("mod.ts run"); the person's own words replace those (taskFor chose the
// task from the same words), so "strata-bench --help" is mod.ts's help whichever set prints it.
const entry = argv.findIndex((w) => w.endsWith("mod.ts"));
const deno = denoExecutable();
// The folder the person ran the command in is this one (its task words were resolved against it): an INIT_CWD left
// by an npm or deno task this process runs under would send relative paths elsewhere.
runForwarding(deno, [argv[0], ...workerRunFlags(args, deno), ...argv.slice(1, entry + 1), ...args], {
  env: { ...process.env, INIT_CWD: process.cwd() },
});
