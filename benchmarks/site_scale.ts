/**
 * bench:site-scale: `site build` and the index page on a large manifest: N entries (default 10,000) that all point
 * at one reviewed result (each with its own run id, so all but one contradict their results.json: every entry is
 * resolved in full, as a maintainer's mistake or a hostile manifest would make the build do). Prints the build's
 * wall time, its peak RSS (the process's high-water mark: the build runs first, in this process), the files and
 * evidence bytes written, the progress lines it printed, and, on a first and a returning visit in headless chromium,
 * when the first verified entries showed and when the index was fully verified, with the progress the page showed
 * while it verified. Asserts nothing about time.
 *
 *   deno task bench:site-scale [--entries 10000] [--browser]
 */
import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import os from "node:os";
import { args, resourceUsage, resultFiles, serveHttp, writeStderr, writeStdout } from "../runtime/mod.ts";
import {
  buildSite,
  folderReader,
  GitRepo,
  gitRunner,
  knownProtocols,
  openSiteOutput,
  outputFiles,
  readWebFile,
  siteRequestHandler,
} from "../site/mod.ts";
import { manifestText } from "../site/web/mod.js";
import { demoFolder, git, PROTOCOLS_JSON, relabel, sha256File, TEST_ACTIVATED } from "../tests/site/_fixture_repo.ts";
import { launchChromium } from "../tests/browser/_chromium.ts";
import { SITE_BUNDLE } from "../tests/site/_bundle.ts";

const { values } = parseArgs({
  args: args(),
  options: { entries: { type: "string", default: "10000" }, browser: { type: "boolean", default: false } },
});
const ENTRIES = Number(values.entries);
// "-2": the relabelled folder records its measured digest (the browser checks it); an older cache would fail.
const BENCH = join(resultFiles.cwd(), ".bench", `site-same-${ENTRIES}-3`);
const REPO = join(BENCH, "repo");

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** One demo result, committed, and a manifest of ENTRIES entries pointing at it (made once, reused). */
async function makeRepository(): Promise<void> {
  if (await exists(join(REPO, "bench/approved.json"))) return;
  await rm(BENCH, { recursive: true, force: true });
  await resultFiles.makeDirectory(join(REPO, "bench/results"));
  await git(REPO, "init", "-q", "-b", "main");
  const made = await demoFolder(join(BENCH, "made"), true);
  const folder = join(REPO, "bench/results/only");
  await rename(made, folder);
  await relabel(folder, { protocolId: TEST_ACTIVATED, status: "complete", gpu: "NVIDIA RTX A4000", quant: "Q4_K_M" });
  await git(REPO, "add", "-A");
  await git(REPO, "commit", "-q", "-m", "one result");
  const commit = (await git(REPO, "rev-parse", "HEAD")).stdout.trim();
  const result = JSON.parse(await readFile(join(folder, "results.json"), "utf8"));
  const sha = await sha256File(join(folder, "results.json"));
  const entries = Array.from({ length: ENTRIES }, (_, i) => ({
    run_id: i === 0 ? result.run.id : `${result.run.id}-copy-${i}`,
    protocol_id: TEST_ACTIVATED,
    results_path: "bench/results/only/results.json",
    results_sha256: sha,
    evidence_commit: commit,
    review_pr: "https://github.com/example/results/pull/1",
    reviewed_by: "maintainer-one",
    // After the run: a review dated before the run it reviewed is implausible (every judge refuses it).
    reviewed_at: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    verification: "evidence-reviewed",
    reproduction_run_ids: [],
  }));
  await writeFile(join(REPO, "bench/approved.json"), manifestText(entries));
  await git(REPO, "add", "-A");
  await git(REPO, "commit", "-q", "-m", "approve");
  await writeFile(join(BENCH, "protocols.json"), PROTOCOLS_JSON);
}

await makeRepository();
const out = join(BENCH, "site");
await rm(out, { recursive: true, force: true });
const writer = await openSiteOutput(outputFiles, out);
const declarations = new Uint8Array(await readFile(join(BENCH, "protocols.json")));
const progress: string[] = [];
let progressAt: number | null = null;
const started = performance.now();
const report = await buildSite(new GitRepo(gitRunner(REPO)), writer, {
  protocols: knownProtocols(declarations),
  ...SITE_BUNDLE,
  protocolDeclarations: declarations,
  readWebFile,
  onProgress: (done, total) => {
    const now = performance.now();
    if (now - (progressAt ?? -Infinity) < 2000 && done !== total) return;
    progressAt = now;
    const line = `${done}/${total} at ${((now - started) / 1000).toFixed(1)} s`;
    progress.push(line);
    writeStderr(`site build: resolved ${line}\n`);
  },
});
await writer.finish(report.files);
const buildS = (performance.now() - started) / 1000;
const usage = resourceUsage();
const [load1] = os.loadavg();
writeStdout(
  `bench:site-scale: ${ENTRIES} entries pointing at one result; site build ${buildS.toFixed(1)} s, peak RSS ${
    (usage.peakRssBytes / 1048576).toFixed(0)
  } MiB, ${report.files.length} files, ${(report.evidenceBytes / 1048576).toFixed(1)} MiB of evidence\n` +
    `machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "unknown"}), load average ${load1?.toFixed(2)}\n` +
    `progress lines: ${progress.length} (first ${progress[0] ?? "none"}, last ${progress.at(-1) ?? "none"})\n`,
);

if (values.browser) {
  const server = await serveHttp({ hostname: "127.0.0.1", port: 0, onRequest: siteRequestHandler(folderReader(out)) });
  const browser = await launchChromium({ tempDir: join(BENCH, "tmp") });
  try {
    const page = await (await browser.newContext()).newPage();
    // A first visit (fresh profile), then a returning one (the same profile: the verified verdict remembered).
    for (const visit of ["first visit", "returning visit"]) {
      await page.goto(`http://127.0.0.1:${server.port}/`);
      const seen: string[] = [];
      for (;;) {
        const done = await page.locator('html[data-state="done"]').count();
        if (done > 0) break;
        const text = await page.locator("p.built, #pending").first().innerText().catch(() => "");
        if (text !== "" && seen.at(-1) !== text) seen.push(text.slice(0, 90));
        await page.waitForTimeout(500);
      }
      const doneMs = Number(await page.getAttribute("html", "data-done-ms"));
      const firstMs = Number(await page.getAttribute("html", "data-first-ms"));
      writeStdout(
        `${visit}: first verified entries shown at ${(firstMs / 1000).toFixed(1)} s, index fully verified and ` +
          `rendered in ${(doneMs / 1000).toFixed(1)} s; while verifying it showed ${seen.length} progress texts ` +
          `(last "${seen.at(-1) ?? ""}")\n`,
      );
    }
  } finally {
    await browser.close();
    await server.close();
  }
}
