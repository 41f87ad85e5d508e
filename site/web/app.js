// @ts-check
/// <reference lib="dom" />
/**
 * The site's page script. It loads the manifest and the build's map of evidence files, verifies every entry it
 * needs in this browser (checkResult in one worker per core: hashes by Web Crypto, the whole recomputation), and
 * draws the index as entries pass, or a result page once its entry is checked. An entry that fails shows its
 * reasons and none of its numbers. A verified verdict is remembered in this browser (remembered.js), and a page
 * that shows a remembered one says so.
 */
import { isObject } from "./evidence.js";
import { readManifest } from "./manifest.js";
import { sha256Hex } from "./sha256.js";
import { parseStrictJson } from "./strict_json.js";
import { fetchBytes, siteProtocols, unverifiable, verifyEntry } from "./verify_entry.js";
import { h, show } from "./app_dom.js";
import { kindOf } from "./app_state.js";
import { openRemembered } from "./remembered.js";
import { renderIndex } from "./page_index.js";
import { renderResult } from "./page_result.js";

/** @typedef {import("./check_result.js").CheckOutcome} CheckOutcome */
/** @typedef {import("./manifest.js").ReadEntry} ReadEntry */
/** @typedef {import("./protocol.js").KnownProtocol} KnownProtocol */
/** @typedef {import("./verify_entry.js").SiteEntry} SiteEntry */
/** @typedef {import("./verify_entry.js").EntryRead} EntryRead */
/** @typedef {import("./app_state.js").SiteState} SiteState */

/** Entries each verifier works on at once (their fetches overlap). */
const PER_VERIFIER = 3;
/** Most workers started, whatever the core count. */
const MAX_WORKERS = 8;

/** @param {string} url */
async function fetchText(url) {
  const bytes = await fetchBytes(url);
  if (bytes === null) throw new Error(`Cannot load ${url}`);
  return new TextDecoder().decode(bytes);
}

/** @param {unknown} error */
const stopped = (error) =>
  unverifiable([`the check stopped: ${error instanceof Error ? error.message : String(error)}`]);

/** Workers to start: one per core. */
const cores = () => Math.max(1, Math.min(MAX_WORKERS, navigator.hardwareConcurrency || 2));

/**
 * The entries in the order lanes take them, and the verifier each goes to: the entries of one pack (the build packs
 * consecutive entries together) go to one verifier, which fetches the pack once, and the verifiers' turns alternate.
 * @param {SiteEntry[]} queue @param {number} count
 * @returns {{ order: SiteEntry[], verifierOf: Map<SiteEntry, number> }}
 */
function spread(queue, count) {
  /** @type {Map<string, number>} */
  const byPack = new Map();
  /** @type {SiteEntry[][]} */
  const turns = Array.from({ length: count }, () => []);
  /** @type {Map<SiteEntry, number>} */
  const verifierOf = new Map();
  queue.forEach((site, i) => {
    const pack = typeof site.pack?.location === "string" ? site.pack.location : null;
    if (pack !== null && !byPack.has(pack)) byPack.set(pack, byPack.size % count);
    const verifier = pack === null ? i % count : /** @type {number} */ (byPack.get(pack));
    verifierOf.set(site, verifier);
    turns[verifier]?.push(site);
  });
  const longest = Math.max(0, ...turns.map((turn) => turn.length));
  const order = Array.from({ length: longest }, (_, i) => turns.flatMap((turn) => (i < turn.length ? [turn[i]] : [])));
  return { order: /** @type {SiteEntry[]} */ (order.flat()), verifierOf };
}

/**
 * Verifiers: module workers, one per core, or the page itself where workers cannot start.
 * @param {string} root @param {readonly KnownProtocol[]} protocols
 * @returns {{ verify: (site: SiteEntry, read: EntryRead, verifier: number) => Promise<CheckOutcome>, count: number,
 *   close: () => void }}
 */
function verifiers(root, protocols) {
  /** @type {Worker[]} */
  const workers = [];
  try {
    for (let i = 0; i < cores(); i++) {
      workers.push(new Worker(new URL("./verify_worker.js", import.meta.url), { type: "module" }));
    }
  } catch {
    for (const w of workers) w.terminate();
    const verify = (/** @type {SiteEntry} */ site, /** @type {EntryRead} */ read) =>
      verifyEntry(root, site, read, protocols).catch(stopped);
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
    verify(site, read, verifier) {
      const id = next++;
      const worker = /** @type {Worker} */ (workers[verifier % workers.length]);
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

/**
 * What a remembered verdict is filed under: the entry's evidence locations, its build problems and run id, and its
 * manifest entry as read (a changed byte of any is another key, checked anew).
 * @param {SiteEntry} site @param {ReadEntry | null} read
 */
function verdictKey(site, read) {
  return JSON.stringify([
    site.results,
    site.artifacts,
    site.build_problems,
    site.run_id,
    read?.entry ?? null,
    read?.problems ?? null,
  ]);
}

/**
 * Milliseconds between two drawings of a page that is still verifying, at least; and at least DRAW_SHARE times
 * the last drawing's own time, so that drawing a large index takes no more than a small share of the page's time.
 */
const DRAW_EVERY_MS = 400;
const DRAW_SHARE = 8;

/**
 * Loads the manifest and the site data, verifies the entries `wanted` selects, and returns the state to render;
 * `onProgress` sees the state as entries pass (at most every DRAW_EVERY_MS).
 * @param {string} root
 * @param {(site: SiteEntry, all: readonly SiteEntry[], readOf: (site: SiteEntry) => ReadEntry | null) => boolean} wanted
 * @param {(state: SiteState) => void} onProgress
 * @returns {Promise<SiteState>}
 */
async function load(root, wanted, onProgress) {
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
    total: 0,
    simulated: siteData.simulated === true,
    withdrawn: [],
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
  state.withdrawn = manifest.withdrawn;
  const protocolsBytes = await fetchBytes(`${root}data/protocols.json`);
  const protocols = await siteProtocols(root);
  /** @type {SiteEntry[]} */
  const all = Array.isArray(siteData.entries) ? siteData.entries : [];
  const byIndex = new Map(manifest.entries.map((e) => [e.index, e]));
  /** @param {SiteEntry} site */
  const readOf = (site) => byIndex.get(site.index) ?? null;
  const wantedSites = all.filter((site) => wanted(site, all, readOf));
  state.total = wantedSites.length;
  const remembered = await openRemembered(
    typeof siteData.checker_sha256 === "string" ? siteData.checker_sha256 : null,
    protocolsBytes === null ? "" : new TextDecoder().decode(protocolsBytes),
  );
  /** @param {SiteEntry} site */
  const keyOf = (site) => verdictKey(site, readOf(site));
  const kept = await remembered.getMany(wantedSites.map(keyOf));
  /**
   * Verdicts checked now, remembered at each drawing and at the end: a reader who leaves a large index before its
   * last entry passes (bench:site: 10,000 entries take minutes) keeps what passed.
   * @type {[string, CheckOutcome][]}
   */
  const fresh = [];
  /** Entries with the same evidence and the same manifest entry get one check. @type {Map<string, Promise<{ outcome: CheckOutcome, checkedAt: string | null }>>} */
  const same = new Map();
  // Verifiers start only when something is left to check; the order follows how many started (the page alone too).
  let pool = wantedSites.some((site) => !kept.has(keyOf(site))) ? verifiers(root, protocols) : null;
  const { order: queue, verifierOf } = spread(wantedSites, pool?.count ?? 1);
  let nextDraw = performance.now() + DRAW_EVERY_MS;
  const lane = async () => {
    for (let site = queue.shift(); site !== undefined; site = queue.shift()) {
      const read = readOf(site);
      const key = keyOf(site);
      let check = same.get(key);
      if (check === undefined) {
        const known = kept.get(key);
        check = known !== undefined ? Promise.resolve(known) : (async () => {
          const outcome = await (pool ??= verifiers(root, protocols)).verify(site, read, verifierOf.get(site) ?? 0);
          fresh.push([key, outcome]);
          return { outcome, checkedAt: null };
        })();
        same.set(key, check);
      }
      const { outcome, checkedAt } = await check;
      state.entries.push({ site, read, outcome, kind: kindOf(outcome), checkedAt });
      const now = performance.now();
      if (now >= nextDraw && state.entries.length < state.total) {
        state.seconds = (now - started) / 1000;
        state.entries.sort((a, b) => a.site.index - b.site.index);
        remembered.putMany(fresh.splice(0));
        onProgress(state);
        // Reading a layout figure makes the browser lay the drawing out now, so its cost is counted too.
        void document.body.offsetHeight;
        const end = performance.now();
        nextDraw = end + Math.max(DRAW_EVERY_MS, DRAW_SHARE * (end - now));
      }
    }
  };
  const lanes = cores() * PER_VERIFIER;
  await Promise.all(Array.from({ length: lanes }, lane));
  /** @type {ReturnType<typeof verifiers> | null} */ (pool)?.close();
  remembered.putMany(fresh);
  state.entries.sort((a, b) => a.site.index - b.site.index);
  state.seconds = (performance.now() - started) / 1000;
  return state;
}

/**
 * The result's results.json, read again for the facts the recomputation does not carry, only when its bytes
 * still have the SHA-256 the check verified. @param {SiteState} state @param {string} slug
 * @returns {Promise<Record<string, unknown> | null>}
 */
async function recordOf(state, slug) {
  const entry = state.entries.find((e) => e.site.slug === slug);
  if (entry === undefined || entry.outcome.state !== "verified" || entry.site.results === null) return null;
  const bytes = await fetchBytes(state.root + entry.site.results);
  if (bytes === null || await sha256Hex(bytes) !== entry.outcome.resultsSha256) return null;
  const parsed = parseStrictJson(new TextDecoder().decode(bytes));
  return parsed.ok && isObject(parsed.value) ? parsed.value : null;
}

async function main() {
  const body = document.body;
  // Absolute, so that workers (whose base is assets/) fetch the same files; without the address's query or
  // fragment (?rows=N, a shared link's tracking tag), which would otherwise end up inside every file's URL.
  const base = new URL(body.dataset.root ?? "", location.href);
  base.search = "";
  base.hash = "";
  const root = base.href;
  try {
    if (body.dataset.page === "result") {
      const slug = body.dataset.entry ?? "";
      const state = await load(root, (site, all, readOf) => {
        if (site.slug === slug) return true;
        // The reproductions this entry links to are verified too, to show how their setups differ, and the entries
        // of its run id, to link the record it replaced or that replaced it.
        const self = all.find((s) => s.slug === slug);
        if (self !== undefined && site.run_id !== null && site.run_id === self.run_id) return true;
        const links = self === undefined ? [] : readOf(self)?.entry?.reproduction_run_ids ?? [];
        return site.run_id !== null && links.includes(site.run_id);
      }, () => {});
      renderResult(state, slug, await recordOf(state, slug));
    } else {
      const drawn = (/** @type {SiteState} */ state) => {
        // Milliseconds until the first verified numbers showed (read by benchmarks/site.ts).
        if (state.entries.length > 0) document.documentElement.dataset.firstMs ??= performance.now().toFixed(1);
        renderIndex(state);
      };
      drawn(await load(root, () => true, drawn));
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
