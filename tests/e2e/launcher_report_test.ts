/**
 * `strata-bench report FILE.jsonl` as a user types it: the launcher gives the command the permission set that lets
 * it write what its help says (CSV, HTML, the curve) into bench-results, beside the page load wrote, never over it.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const LAUNCHER = join(fileURLToPath(new URL("../../", import.meta.url)), "bin", "strata-bench.mjs");

async function strataBench(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command("node", { args: [LAUNCHER, ...args], cwd, stdout: "piped", stderr: "piped" })
    .output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
}

Deno.test("strata-bench report FILE.jsonl writes its CSV, page and curve beside load's page, replacing nothing", async () => {
  const cwd = await mkdtemp(join(tmpdir(), "strata-report-"));
  try {
    const load = await strataBench(cwd, "load", "--self-check", "--concurrency", "1,2", "--requests", "4", "--html");
    assert.equal(load.code, 0, load.stderr);
    const [jsonl] = (await readdir(join(cwd, "bench-results"))).filter((n) => n.endsWith(".jsonl"));
    assert.ok(jsonl !== undefined, "load wrote its JSONL into bench-results");
    const stem = jsonl.replace(/\.jsonl$/, "");
    const page = await readFile(join(cwd, "bench-results", `${stem}.html`), "utf8");
    const report = await strataBench(cwd, "report", join("bench-results", jsonl));
    assert.equal(report.code, 0, report.stderr);
    assert.doesNotMatch(report.stderr, /Cannot write|permission/);
    const names = await readdir(join(cwd, "bench-results"));
    for (const end of [".csv", ".html", "-curve.svg"]) assert.ok(names.includes(`${stem}-report${end}`), names.join());
    assert.equal(await readFile(join(cwd, "bench-results", `${stem}.html`), "utf8"), page, "load's page is untouched");
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
});
