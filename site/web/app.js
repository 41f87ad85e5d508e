// @ts-check
/// <reference lib="dom" />
/**
 * The site's page script. It loads the manifest and the build's map of evidence files, verifies every entry it
 * needs in this browser (checkResult: hashes by Web Crypto, the whole recomputation), and only then renders the
 * index or a result page. An entry that fails shows its reasons and none of its numbers.
 */
import { checkResult } from "./check_result.js";
import { readManifest } from "./manifest.js";
import { KNOWN_PROTOCOLS, protocolsWithDeclarations } from "./protocol.js";
import { sha256Hex } from "./sha256.js";
import { parseStrictJson } from "./strict_json.js";
import { h, show } from "./app_dom.js";
import { renderIndex, renderResult } from "./app_render.js";

/** @typedef {import("./check_result.js").CheckOutcome} CheckOutcome */
/** @typedef {import("./manifest.js").ReadEntry} ReadEntry */
/** @typedef {import("./protocol.js").KnownProtocol} KnownProtocol */

/**
 * One entry of the build's data/site.json.
 * @typedef {{ index: number, slug: string, run_id: string | null, results_folder: string | null,
 *   results: string | null, artifacts: Record<string, string | null>, build_problems: string[] }} SiteEntry
 */

/**
 * An entry with its verification.
 * @typedef {{ site: SiteEntry, read: ReadEntry | null, outcome: CheckOutcome,
 *   kind: "complete" | "partial" | "nonconforming" | "draft" | "failed" | "unverifiable" }} VerifiedEntry
 */

/** @typedef {{ branch: string, commit: string, manifestProblem: string | null, entries: VerifiedEntry[],
 *   root: string, seconds: number }} SiteState */

/** Entries verified at the same time (fetches overlap; hashing and parsing share the main thread). */
const PARALLEL = 6;

/** @param {string} url @returns {Promise<Uint8Array | null>} */
async function fetchBytes(url) {
  try {
    const response = await fetch(url);
    return response.ok ? new Uint8Array(await response.arrayBuffer()) : null;
  } catch {
    return null;
  }
}

/** @param {string} url */
async function fetchText(url) {
  const bytes = await fetchBytes(url);
  if (bytes === null) throw new Error(`Cannot load ${url}`);
  return new TextDecoder().decode(bytes);
}

/** @param {string[]} reasons @returns {CheckOutcome} */
function unverifiable(reasons) {
  return { state: "unverifiable", reasons, checks: [], resultsSha256: null, protocol: null, facts: null };
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
 * Verifies one entry from the site's copy of its evidence.
 * @param {string} root @param {SiteEntry} site @param {ReadEntry | null} read
 * @param {readonly KnownProtocol[]} protocols @returns {Promise<CheckOutcome>}
 */
async function verifyEntry(root, site, read, protocols) {
  if (read === null) return unverifiable(["the site's data names an entry the manifest does not have"]);
  if (read.entry === null) return unverifiable(read.problems.map((p) => `manifest entry: ${p}`));
  if (site.run_id !== read.entry.run_id) return unverifiable(["the site's data does not match the manifest entry"]);
  if (site.build_problems.length > 0) return unverifiable(site.build_problems);
  const entry = read.entry;
  const resultsBytes = site.results === null ? null : await fetchBytes(root + site.results);
  return await checkResult({
    resultsBytes,
    missingReason: `${entry.results_path} is not part of this site`,
    expected: { resultsSha256: entry.results_sha256, runId: entry.run_id, protocolId: entry.protocol_id },
    readArtifact: (path) => {
      const location = Object.hasOwn(site.artifacts, path) ? site.artifacts[path] : null;
      return typeof location === "string" ? fetchBytes(root + location) : Promise.resolve(null);
    },
    protocols,
  });
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
  const declarations = parseStrictJson(await fetchText(`${root}data/protocols.json`));
  const declared = declarations.ok ? protocolsWithDeclarations(declarations.value) : null;
  const protocols = declared !== null && declared.ok ? declared.protocols : KNOWN_PROTOCOLS;
  /** @type {SiteEntry[]} */
  const all = Array.isArray(siteData.entries) ? siteData.entries : [];
  /** @param {SiteEntry} site */
  const readOf = (site) => manifest.entries.find((e) => e.index === site.index) ?? null;
  const queue = all.filter((site) => wanted(site, all, readOf));
  /** @type {Map<SiteEntry, CheckOutcome>} */
  const outcomes = new Map();
  const worker = async () => {
    for (let site = queue.shift(); site !== undefined; site = queue.shift()) {
      const read = readOf(site);
      try {
        outcomes.set(site, await verifyEntry(root, site, read, protocols));
      } catch (error) {
        outcomes.set(
          site,
          unverifiable([`the check stopped: ${error instanceof Error ? error.message : String(error)}`]),
        );
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
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
  const root = body.dataset.root ?? "";
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
