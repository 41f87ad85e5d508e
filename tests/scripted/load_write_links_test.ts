/**
 * What load, compare and report (of a saved JSONL) write goes through the folder writer: a link in place of the --out
 * folder is refused, nothing is written where it points, and the run says it could not write.
 */
import assert from "node:assert/strict";
import { readdir, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { startMockEngine } from "../../mock/mod.ts";
import { parseLoadCommand } from "../../cli/load.ts";
import { parseCompareCommand } from "../../cli/compare.ts";
import { reportSaved } from "../../cli/_saved_results.ts";
import { realLoadDeps, runCompare, runLoadTest } from "../../load/mod.ts";

const ENGINE = { timeScale: 0, slots: 4, script: { "*": { answer: { kind: "text" as const, text: "a b c" } } } };

Deno.test({
  name: "load, compare and report's CSV refuse a link as the output folder and write nothing through it",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "strata-out-link-" });
    const target = await Deno.makeTempDir({ prefix: "strata-out-target-" });
    const engine = await startMockEngine(ENGINE);
    try {
      const link = join(dir, "results");
      await symlink(target, link);
      const load =
        parseLoadCommand(["--url", engine.url, "--concurrency", "1", "--requests", "2", "--no-headroom-check"]).options;
      load.out = join(link, "run.jsonl");
      load.promptMixReport = join(link, "run.prompt-mix.json");
      const outcome = await runLoadTest(load, realLoadDeps());
      assert.equal(outcome.status, "write-failed");
      assert.match(outcome.status === "write-failed" ? outcome.reason : "", /results" is a symbolic link/);
      const page = await realLoadDeps().writeText(join(link, "run.html"), "<html></html>");
      assert.equal(page.ok, false);

      const compare = parseCompareCommand([
        ...["--baseline", engine.url, "--candidate", engine.url, "--concurrency", "1", "--rounds", "1"],
        ...["--requests", "1", "--warmup-requests", "0", "--workload", "chat-short", "--sample", "4"],
      ]).options;
      compare.out = join(link, "compare.jsonl");
      await assert.rejects(runCompare(compare, realLoadDeps()), /results" is a symbolic link; nothing is written/);

      // A saved JSONL in a plain folder, reported into the link: its CSV, page and curve are refused.
      load.out = join(dir, "saved.jsonl");
      delete load.promptMixReport;
      assert.equal((await runLoadTest(load, realLoadDeps())).status, "ok");
      assert.equal(await reportSaved([load.out, "--out", link]), 3);
      assert.deepEqual(await readdir(target), []);
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
      await rm(target, { recursive: true, force: true });
    }
  },
});
