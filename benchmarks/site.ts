/**
 * bench:site: how long a reader waits for a fully verified index page of 200 approved results of 34 requests each
 * (the whole protocol with the optional concurrency stage), in headless chromium on this machine: every results.json
 * and artifact fetched and hashed by Web Crypto, every request, count, verdict, summary and round recomputed,
 * the page rendered. Per load: a first visit (fresh profile) and a returning one (the same profile, whose verified
 * verdicts the browser remembered); for each, when the first verified numbers showed and when every entry was
 * checked. Prints medians; asserts nothing about time.
 *
 * The results repository (200 folders of the standard protocol with its concurrency stage against the scripted
 * engine, made in process as `demo --optional-concurrency` makes one, labelled as activated complete runs the way
 * tests/site/_fixture_repo.ts describes) is made once into .bench/site-200-4 and reused. With --distinct D below
 * --entries, D runs are made (or taken from .bench/site-D-4) and the rest are copies of them under run ids of
 * their own: distinct results.json, evidence files shared.
 *
 *   deno task bench:site [--entries 200] [--distinct D] [--loads 5]
 */
import { statSync } from "node:fs";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import os from "node:os";
import { args, resultFiles, serveHttp, writeStderr, writeStdout } from "../runtime/mod.ts";
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
import { copyFolder, git, PROTOCOLS_JSON, relabel, sha256File, TEST_ACTIVATED } from "../tests/site/_fixture_repo.ts";
import { makeDemoFolders } from "./_site_folders.ts";
import { launchChromium } from "../tests/browser/_chromium.ts";
import { SITE_BUNDLE } from "../tests/site/_bundle.ts";

const { values } = parseArgs({
  args: args(),
  options: {
    entries: { type: "string", default: "200" },
    distinct: { type: "string" },
    loads: { type: "string", default: "5" },
  },
});
const ENTRIES = Number(values.entries);
/** Runs made; the entries past them are copies of them under run ids of their own (their evidence shared). */
const DISTINCT = Math.min(ENTRIES, Number(values.distinct ?? ENTRIES));
const LOADS = Number(values.loads);
// "-4": evidence version 5, folders made in process (run-00000 on); an older cache would be refused.
const benchFolder = (entries: number, distinct: number) =>
  join(resultFiles.cwd(), ".bench", distinct === entries ? `site-${entries}-4` : `site-${entries}-of-${distinct}-4`);
const BENCH = benchFolder(ENTRIES, DISTINCT);
const REPO = join(BENCH, "repo");
const GPUS = ["NVIDIA GeForce RTX 3060", "NVIDIA RTX A4000", "NVIDIA GeForce RTX 4090", "AMD Radeon RX 7900 XTX"];
const QUANTS = ["IQ3_XXS", "Q4_K_M", "Q8_0"];

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Makes the repository once: ENTRIES demo folders, made in this process two at a time, and a manifest. */
async function makeRepository(): Promise<void> {
  if (await exists(join(REPO, "bench/approved.json"))) return;
  await rm(BENCH, { recursive: true, force: true });
  await mkdir(join(REPO, "bench/results"), { recursive: true });
  await git(REPO, "init", "-q", "-b", "main");
  const started = performance.now();
  const folders: string[] = [];
  const label = (i: number, folder: string, runId?: string) =>
    relabel(folder, {
      protocolId: TEST_ACTIVATED,
      status: "complete",
      gpu: GPUS[i % GPUS.length]!,
      quant: QUANTS[i % QUANTS.length]!,
      model: "Qwen/Qwen3.8-Flash-Next",
      ...(runId === undefined ? {} : { runId }),
    });
  const nameOf = (i: number) => join(REPO, "bench/results", `run-${String(i).padStart(5, "0")}`);
  // The distinct runs: those of the benchmark of DISTINCT entries when it was made, else made here.
  const made = join(benchFolder(DISTINCT, DISTINCT), "repo", "bench/results");
  if (DISTINCT < ENTRIES && await exists(join(made, `run-${String(DISTINCT - 1).padStart(5, "0")}`))) {
    for (let i = 0; i < DISTINCT; i++) {
      await copyFolder(join(made, `run-${String(i).padStart(5, "0")}`), nameOf(i));
      folders[i] = nameOf(i);
    }
  } else {
    await makeDemoFolders(join(BENCH, "made"), DISTINCT, async (i, made) => {
      await rename(made, nameOf(i));
      await label(i, nameOf(i));
      folders[i] = nameOf(i);
      if (i % 100 === 0) writeStderr(`made ${i + 1}/${DISTINCT} result folders\n`);
    });
  }
  for (let i = DISTINCT; i < ENTRIES; i++) {
    await copyFolder(folders[i % DISTINCT]!, nameOf(i));
    await label(i, nameOf(i), `copy-${i}-of-${i % DISTINCT}`);
    folders[i] = nameOf(i);
  }
  await git(REPO, "add", "-A");
  await git(REPO, "commit", "-q", "-m", "results");
  const commit = (await git(REPO, "rev-parse", "HEAD")).stdout.trim();
  const entries = [];
  for (const folder of folders) {
    const result = JSON.parse(await readFile(join(folder, "results.json"), "utf8"));
    const relative = folder.slice(REPO.length + 1);
    entries.push({
      run_id: result.run.id,
      protocol_id: TEST_ACTIVATED,
      results_path: `${relative}/results.json`,
      results_sha256: await sha256File(join(folder, "results.json")),
      evidence_commit: commit,
      review_pr: "https://github.com/example/results/pull/1",
      reviewed_by: "maintainer-one",
      // After the runs: a review dated before the run it reviewed is implausible (every judge refuses it).
      reviewed_at: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      verification: "evidence-reviewed",
      reproduction_run_ids: [],
    });
  }
  await writeFile(join(REPO, "bench/approved.json"), manifestText(entries));
  await git(REPO, "add", "-A");
  await git(REPO, "commit", "-q", "-m", "approve");
  await writeFile(join(BENCH, "protocols.json"), PROTOCOLS_JSON);
  writeStderr(`made the repository in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

await makeRepository();
const out = join(BENCH, "site");
const writer = await openSiteOutput(outputFiles, out);
const buildStarted = performance.now();
const declarations = new Uint8Array(await readFile(join(BENCH, "protocols.json")));
const report = await buildSite(new GitRepo(gitRunner(REPO)), writer, {
  protocols: knownProtocols(declarations),
  ...SITE_BUNDLE,
  protocolDeclarations: declarations,
  readWebFile,
});
await writer.finish(report.files);
const buildS = (performance.now() - buildStarted) / 1000;

const server = await serveHttp({ hostname: "127.0.0.1", port: 0, onRequest: siteRequestHandler(folderReader(out)) });
const browser = await launchChromium({ tempDir: join(BENCH, "tmp") });
/** One visit's figures, in ms from navigation start. */
interface Visit {
  done: number;
  first: number;
  verify: number;
  remembered: number;
}
const firstVisits: Visit[] = [];
const returning: Visit[] = [];
let rows = 0;
try {
  for (let i = 0; i < LOADS; i++) {
    // A fresh context: an empty cache and nothing remembered, every byte fetched and checked, as on a first visit.
    const context = await browser.newContext();
    const page = await context.newPage();
    for (const visits of [firstVisits, returning]) {
      await page.goto(`http://127.0.0.1:${server.port}/`);
      await page.waitForSelector('html[data-state="done"]', { timeout: 590_000 });
      const built = await page.locator("p.built").innerText();
      visits.push({
        done: Number(await page.getAttribute("html", "data-done-ms")),
        first: Number(await page.getAttribute("html", "data-first-ms")),
        verify: Number(/ in ([0-9.]+) s/.exec(built)?.[1] ?? NaN) * 1000,
        remembered: Number(/; (\d+) of them remembered/.exec(built)?.[1] ?? 0),
      });
      rows = await page.locator("#standard tbody tr").count();
      const rejected = await page.locator("#rejected li[data-kind]").count();
      if (rejected > 0) throw new Error(`${rejected} entries did not verify`);
    }
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
const [load1] = os.loadavg();
// The bundle the browser fetches once per visit to rebuild every request sent by reference (evidence version 5).
const bundleBytes = report.files.filter((f) => f.startsWith("data/bundle/"))
  .reduce((sum, f) => sum + statSync(join(out, f)).size, 0);
const line = (name: string, visits: Visit[], key: keyof Visit) =>
  `  ${name}: median ${median(visits.map((v) => v[key])).toFixed(0)} ms (${
    visits.map((v) => v[key].toFixed(0)).join(", ")
  })\n`;
writeStdout(
  `bench:site: ${ENTRIES} approved entries x 34 requests, ${report.files.length} files, ` +
    `${(report.evidenceBytes / 1048576).toFixed(1)} MiB of evidence (site build ${buildS.toFixed(1)} s)\n` +
    `a first visit fetches ${(report.evidenceBytes / ENTRIES / 1024).toFixed(0)} KiB per entry (results.json and ` +
    `its artifacts, as stored) and the frozen bundle once (${(bundleBytes / 1024).toFixed(0)} KiB)\n` +
    `machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "unknown"}), load average ${load1?.toFixed(2)}\n` +
    `index page (${rows} ranked rows), ms from navigation start, ${LOADS} loads each (target: every entry checked < 3000):\n` +
    `first visit (nothing cached or remembered):\n` +
    line("first verified numbers shown", firstVisits, "first") +
    line("every entry checked (the page's own figure)", firstVisits, "verify") +
    line("every entry checked and the page drawn", firstVisits, "done") +
    `returning visit (the same browser profile: verdicts remembered, ${
      returning[0]?.remembered ?? 0
    } of ${ENTRIES}):\n` +
    line("first verified numbers shown", returning, "first") +
    line("every entry checked and the page drawn", returning, "done"),
);
