/**
 * What an attacker found in the review path, each fixed: the site's check no longer verifies folders report
 * rejects (a huge results.json, a lone surrogate, a top-level __proto__), `report` marks an invalid folder's
 * summary, names a weight file, and tells two different results with one run id from the same run twice.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { folderReader, KNOWN_PROTOCOLS, verifyFolder } from "../../site/mod.ts";
import { copyFolder, demoFolder, sha256File, strataBench } from "../site/_fixture_repo.ts";
import { SITE_BUNDLE } from "../site/_bundle.ts";

const root = await Deno.makeTempDir({ prefix: "strata-attacker-" });
const demo = await demoFolder(join(root, "made"));
globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));

let copies = 0;
async function changed(edit: (folder: string) => Promise<void>): Promise<string> {
  const folder = join(root, `copy-${++copies}`);
  await copyFolder(demo, folder);
  await edit(folder);
  return folder;
}

/** Rewrites results.json's text (the demo's own, two-space indented). */
async function rewrite(folder: string, change: (text: string) => string): Promise<void> {
  const path = join(folder, "results.json");
  await Deno.writeTextFile(path, change(await Deno.readTextFile(path)));
}

const check = (folder: string) => verifyFolder(folderReader(folder), { protocols: KNOWN_PROTOCOLS, ...SITE_BUNDLE });

Deno.test("the genuine demo folder verifies (the baseline the hostile copies start from)", async () => {
  const outcome = await check(demo);
  assert.equal(outcome.state, "verified", outcome.reasons.join("\n"));
});

Deno.test("site verify refuses what report refuses: a lone surrogate, a top-level __proto__, 17 MiB", async () => {
  const surrogate = await changed((f) => rewrite(f, (t) => t.replace('"track":"custom",', '"track":"custom\\ud800",')));
  const proto = await changed((f) => rewrite(f, (t) => t.replace("{", '{\n  "__proto__": {"status": "complete"},')));
  const huge = await changed((f) =>
    rewrite(f, (t) => t.replace('"track_notes":"', `"track_notes":"${"x".repeat(17 * 1024 * 1024)}`))
  );
  const cases: [string, RegExp][] = [
    [surrogate, /unpaired surrogate escape/],
    [proto, /top-level field\(s\) "__proto__" that no result has/],
    [huge, /results\.json is \d+ bytes, more than the 16777216/],
  ];
  for (const [folder, reason] of cases) {
    const outcome = await check(folder);
    assert.notEqual(outcome.state, "verified", folder);
    assert.match(outcome.reasons.join("\n"), reason);
    const report = await strataBench(["report", folder], ["-P=report"]);
    assert.notEqual(report.code, 0, `report accepts ${folder}`);
  }
});

Deno.test("report marks an invalid folder's summary and names a weight file in the folder", async () => {
  const weights = await changed((f) => Deno.writeFile(join(f, "model.gguf"), new TextEncoder().encode("GGUF....")));
  const out = await strataBench(["report", weights], ["-P=report"]);
  assert.equal(out.code, 1);
  assert.match(out.stdout, /^INVALID: results\.json has 1 problem\(s\) \(listed on stderr\); the summary below/);
  assert.match(out.stderr, /"model\.gguf" is a model weight file \(GGUF\); never add model weights/);
  const site = await check(weights);
  assert.match(site.reasons.join("\n"), /"model\.gguf" is a model weight file \(\.gguf\)/);
});

Deno.test("two different results with one run id are not called the same run", async () => {
  const same = await changed(async () => {});
  // A redaction of the track notes, in config.json too (re-hashed): still valid, but no longer the same bytes.
  const edited = await changed(async (f) => {
    const config = join(f, "config.json");
    await Deno.writeTextFile(
      config,
      (await Deno.readTextFile(config)).replace('"track_notes": "demo:', '"track_notes": "a demo:'),
    );
    const sha = await sha256File(config);
    await rewrite(f, (t) =>
      t.replace('"track_notes":"demo:', '"track_notes":"a demo:').replace(
        /("path":"config\.json",[^}]*"sha256":")[0-9a-f]{64}/,
        `$1${sha}`,
      ));
  });
  const twice = await strataBench(["report", demo, same], ["-P=report"]);
  assert.match(twice.stdout, /the same run as .* counted once/);
  const different = await strataBench(["report", demo, edited], ["-P=report"]);
  assert.doesNotMatch(different.stdout, /the same run as/);
  assert.match(different.stdout, /but its results\.json differs: two different results cannot share one run id/);
});

Deno.test("--seal refuses, without a stack trace, a README.md that is a link; a hand-written seal record is invalid", async () => {
  const linked = await changed(async (f) => {
    await Deno.remove(join(f, "README.md"));
    await Deno.symlink(join(f, "results.json"), join(f, "README.md"));
    const path = join(f, "outputs.jsonl");
    await Deno.writeTextFile(
      path,
      (await Deno.readTextFile(path)).replace('"reasoning_text":"', '"reasoning_text":"<home> '),
    );
  });
  const sealed = await strataBench(["report", "--seal", linked], ["-P=report-write", `--allow-write=${linked}`]);
  assert.equal(sealed.code, 1, sealed.stderr);
  assert.match(sealed.stderr, /README\.md cannot be read \(.*symbolic link.*\); it must be a regular file/);
  assert.doesNotMatch(sealed.stderr, /at async|Error:/);

  const forged = await changed((f) =>
    rewrite(f, (t) =>
      t.replace(
        '"extensions":{',
        `"extensions":{\n    "sealed": [{"sealed_at": "2020-01-01T00:00:00Z", "rehashed": [{"path": "template.jinja", ` +
          `"kind": "provenance", "sha256_before": "${"a".repeat(64)}", "sha256_after": "${"b".repeat(64)}"}], ` +
          `"rederived": []}],`,
      ))
  );
  const out = await strataBench(["report", forged], ["-P=report"]);
  assert.equal(out.code, 1);
  assert.match(
    out.stderr,
    /\/extensions\/sealed: seal 0: sealed_at "2020-01-01T00:00:00Z" is not a UTC time after the run/,
  );
  assert.match(
    out.stderr,
    /seal 0 re-hashed "template\.jinja", which is no listed outputs, engine log or config artifact/,
  );
});
