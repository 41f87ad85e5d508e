// @ts-check
/// <reference lib="dom" />
/**
 * The site's page script. It loads the manifest and the build's map of evidence files, verifies every entry it
 * needs in this browser (checkResult: hashes by Web Crypto, the whole recomputation), and only then renders the
 * index or a result page. An entry that fails shows its reasons and none of its numbers.
 */
import { readManifest } from "./manifest.js";
import { sha256Hex } from "./sha256.js";
import { fetchBytes, siteProtocols, unverifiable, verifyEntry } from "./verify_entry.js";
import { h, show } from "./app_dom.js";
import { renderIndex, renderResult } from "./app_render.js";

/** @typedef {import("./check_result.js").CheckOutcome} CheckOutcome */
/** @typedef {import("./manifest.js").ReadEntry} ReadEntry */
/** @typedef {import("./protocol.js").KnownProtocol} KnownProtocol */

/** @typedef {import("./verify_entry.js").SiteEntry} SiteEntry */
/** @typedef {import("./verify_entry.js").EntryRead} EntryRead */

/**
 * An entry with its verification.
 * @typedef {{ site: SiteEntry, read: ReadEntry | null, outcome: CheckOutcome,
 *   kind: "complete" | "partial" | "nonconforming" | "draft" | "failed" | "unverifiable" }} VerifiedEntry
 */

/** @typedef {{ branch: string, commit: string, manifestProblem: string | null, entries: VerifiedEntry[],
 *   root: string, seconds: number }} SiteState */

/** Entries each verifier works on at once (their fetches overlap). */
const PER_VERIFIER = 3;

/** @param {string} url */
async function fetchText(url) {
  const bytes = await fetchBytes(url);
  if (bytes === null) throw new Error(`Cannot load ${url}`);
  return new TextDecoder().decode(bytes);
}

/** @param {CheckOutcome} outcome @returns {VerifiedEntry["kind"]} */
function kindOf(outcome) {
  if (outcome.state !== "verified" || outcome.facts === null) {
    return outcome.state === "failed" ? "failed" : "unverifiable";
  }
  if (outcome.facts.stage !== "activated") return "draft";
  if (outcome.facts.status === "nonconforming") return "nonconforming";
  return outcome.facts.status === "partial" ? "partial" : "complete";
}

/**
 * Verifiers: module workers, one per core (at most 4), or the page itself where workers cannot start.
 * @param {string} root @param {readonly KnownProtocol[]} protocols
 * @returns {{ verify: (site: SiteEntry, read: EntryRead) => Promise<CheckOutcome>, count: number, close: () => void }}
 */
function verifiers(root, protocols) {
  const cores = Math.max(1, Math.min(4, navigator.hardwareConcurrency || 2));
  /** @type {Worker[]} */
  const workers = [];
  try {
    for (let i = 0; i < cores; i++) {
      workers.push(new Worker(new URL("./verify_worker.js", import.meta.url), { type: "module" }));
    }
  } catch {
    for (const w of workers) w.terminate();
    const verify = (/** @type {SiteEntry} */ site, /** @type {EntryRead} */ read) =>
      verifyEntry(root, site, read, protocols).catch((error) =>
        unverifiable([`the check stopped: ${error instanceof Error ? error.message : String(error)}`])
      );
    return { verify, count: 1, close: () => {} };
  }
  /** @type {Map<number, (outcome: CheckOutcome) => void>} */
  const waiting = new Map();
  let next = 0;
  for (const worker of workers) {
    worker.addEventListener("message", (event) => {
      const done = waiting.get(event.data.id);
      waiting.delete(event.data.id);
      done?.(event.data.outcome);
    });
  }
  return {
    verify(site, read) {
      const id = next++;
      const worker = /** @type {Worker} */ (workers[id % workers.length]);
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        worker.postMessage({
          id,
          root,
          site,
          read: read === null ? null : { entry: read.entry, problems: read.problems },
        });
      });
    },
    count: workers.length,
    close: () => workers.forEach((w) => w.terminate()),
  };
}

/** Milliseconds between two updates of the progress line. */
const PROGRESS_EVERY_MS = 200;
let progressShownAt = 0;

/**
 * Says on the page how far the verification is ("Verifying ...: 120 of 10000 entries checked"), so a large
 * manifest shows that it moves. @param {number} done @param {number} total
 */
function progress(done, total) {
  const now = performance.now();
  if (now - progressShownAt < PROGRESS_EVERY_MS && done !== total) return;
  progressShownAt = now;
  const pending = document.getElementById("pending");
  if (pending !== null) {
    pending.textContent = `Verifying the evidence in your browser: ${done} of ${total} entries checked\u2026`;
  }
}

/**
 * Loads the manifest and the site data, verifies the entries `wanted` selects, and returns the state to render.
 * @param {string} root
 * @param {(site: SiteEntry, all: readonly SiteEntry[], readOf: (site: SiteEntry) => ReadEntry | null) => boolean} wanted
 * @returns {Promise<SiteState>}
 */
async function load(root, wanted) {
  const started = performance.now();
  const siteData = JSON.parse(await fetchText(`${root}data/site.json`));
  const manifestBytes = await fetchBytes(`${root}data/approved.json`);
  const built = siteData.built_from ?? {};
  /** @type {SiteState} */
  const state = {
    branch: String(built.branch),
    commit: String(built.commit),
    manifestProblem: siteData.manifest_problem ?? null,
    entries: [],
    root,
    seconds: 0,
  };
  if (state.manifestProblem !== null || manifestBytes === null) {
    state.manifestProblem ??= "the site has no copy of the manifest";
    return state;
  }
  if (await sha256Hex(manifestBytes) !== built.manifest_sha256) {
    state.manifestProblem = "the site's copy of the manifest differs from the one it was built from";
    return state;
  }
  const manifest = readManifest(new TextDecoder().decode(manifestBytes));
  if (!manifest.ok) {
    state.manifestProblem = `bench/approved.json is malformed: ${manifest.problem}`;
    return state;
  }
  const protocols = await siteProtocols(root);
  /** @type {SiteEntry[]} */
  const all = Array.isArray(siteData.entries) ? siteData.entries : [];
  /** @param {SiteEntry} site */
  const readOf = (site) => manifest.entries.find((e) => e.index === site.index) ?? null;
  const queue = all.filter((site) => wanted(site, all, readOf));
  const total = queue.length;
  /** @type {Map<SiteEntry, CheckOutcome>} */
  const outcomes = new Map();
  /** Entries with the same evidence and the same manifest entry get one check. @type {Map<string, Promise<CheckOutcome>>} */
  const same = new Map();
  const pool = verifiers(root, protocols);
  progress(0, total);
  const lane = async () => {
    for (let site = queue.shift(); site !== undefined; site = queue.shift()) {
      const read = readOf(site);
      const key = JSON.stringify([site.results, site.artifacts, site.build_problems, site.run_id, read?.entry ?? null]);
      let check = same.get(key);
      if (check === undefined) {
        check = pool.verify(site, read);
        same.set(key, check);
      }
      outcomes.set(site, await check);
      progress(outcomes.size, total);
    }
  };
  await Promise.all(Array.from({ length: pool.count * PER_VERIFIER }, lane));
  pool.close();
  for (const site of all) {
    const outcome = outcomes.get(site);
    if (outcome === undefined) continue;
    state.entries.push({ site, read: readOf(site), outcome, kind: kindOf(outcome) });
  }
  state.seconds = (performance.now() - started) / 1000;
  return state;
}

async function main() {
  const body = document.body;
  // Absolute, so that workers (whose base is assets/) fetch the same files.
  const root = new URL(body.dataset.root ?? "", location.href).href;
  try {
    if (body.dataset.page === "result") {
      const slug = body.dataset.entry ?? "";
      const state = await load(root, (site, all, readOf) => {
        if (site.slug === slug) return true;
        // The reproductions this entry links to are verified too, to show how their setups differ.
        const self = all.find((s) => s.slug === slug);
        const links = self === undefined ? [] : readOf(self)?.entry?.reproduction_run_ids ?? [];
        return site.run_id !== null && links.includes(site.run_id);
      });
      renderResult(state, slug);
    } else {
      renderIndex(await load(root, () => true));
    }
  } catch (error) {
    show(
      h(
        "p",
        { class: "problem" },
        `The site could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }
  // Milliseconds from navigation start to a fully verified, rendered page (read by benchmarks/site.ts).
  document.documentElement.dataset.doneMs = performance.now().toFixed(1);
  document.documentElement.dataset.state = "done";
}

void main();
