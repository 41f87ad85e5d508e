/**
 * The site's check is independent: its browser code imports only its own folder and names no runtime, and no file
 * of site/ imports the runner, the scorer, the report part or the shared contract. The built site ships exactly
 * the browser files.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { WEB_FILES } from "../../site/_pages.ts";

const SITE = fileURLToPath(new URL("../../site/", import.meta.url));
const IMPORT = /(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g;

async function sources(dir: string): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && /\.(ts|js)$/.test(entry.name)) {
      out.push([entry.name, await Deno.readTextFile(dir + entry.name)]);
    }
  }
  return out;
}

Deno.test("site/web/ imports nothing outside itself and names no runtime (it runs in browsers)", async () => {
  for (const [name, text] of await sources(`${SITE}web/`)) {
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? "";
      assert.match(specifier, /^\.\/[a-z0-9_]+\.js$/, `${name} imports ${specifier}`);
    }
    assert.doesNotMatch(text, /\b(Deno|Bun|process|console)\./, `${name} names a runtime`);
    assert.match(text, /^\/\/ @ts-check\n/, `${name} is type-checked`);
  }
});

Deno.test("no file of site/ imports score/, runner/, report/, contract/ or fixtures/", async () => {
  for (const [name, text] of [...await sources(SITE), ...await sources(`${SITE}web/`)]) {
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? "";
      assert.doesNotMatch(specifier, /(^|\/)(score|runner|report|contract|fixtures)\//, `${name} imports ${specifier}`);
      assert.ok(
        specifier.startsWith("./") || specifier.startsWith("node:") || specifier === "../runtime/mod.ts",
        `${name}: ${specifier}`,
      );
    }
  }
});

Deno.test("the site ships every file of site/web/ and nothing else", async () => {
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${SITE}web/`)) if (entry.isFile) names.push(entry.name);
  assert.deepEqual([...WEB_FILES].sort(), names.sort());
});
