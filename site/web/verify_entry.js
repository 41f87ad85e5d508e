// @ts-check
/**
 * Verifies one manifest entry from the site's copy of its evidence: the manifest entry must be well formed and
 * match the build's data, the build must have found its files, and then checkResult decides. Used by the page
 * script and by verify_worker.js, so the same code runs on the main thread or in workers.
 */
import { checkEvidence, judgeAgainstEntry } from "./check_result.js";
import { KNOWN_PROTOCOLS, protocolsWithDeclarations } from "./protocol.js";
import { parseStrictJson } from "./strict_json.js";

/** @typedef {import("./check_result.js").CheckOutcome} CheckOutcome */
/** @typedef {import("./check_result.js").EvidenceOutcome} EvidenceOutcome */
/** @typedef {import("./manifest.js").ManifestEntry} ManifestEntry */
/** @typedef {import("./protocol.js").KnownProtocol} KnownProtocol */

/**
 * One entry of the build's data/site.json.
 * @typedef {{ index: number, slug: string, run_id: string | null, results_folder: string | null,
 *   results: string | null, artifacts: Record<string, string | null>, build_problems: string[],
 *   folder_files?: string[] | null,
 *   pack?: { location: string, encoding?: string, size?: number, files: Record<string, [number, number]> } | null
 * }} SiteEntry
 */

/**
 * What a verification needs from the manifest: the entry when well formed, else its problems.
 * @typedef {{ entry: ManifestEntry | null, problems: string[] } | null} EntryRead
 */

/** @param {string} url @returns {Promise<Uint8Array | null>} */
export async function fetchBytes(url) {
  try {
    const response = await fetch(url);
    return response.ok ? new Uint8Array(await response.arrayBuffer()) : null;
  } catch {
    return null;
  }
}

/** @param {string[]} reasons @returns {CheckOutcome} */
export function unverifiable(reasons) {
  return { state: "unverifiable", reasons, checks: [], resultsSha256: null, protocol: null, facts: null };
}

/**
 * The protocols the site knows plus those its build declared (data/protocols.json).
 * @param {string} root absolute URL of the site's root, ending in /
 * @returns {Promise<readonly KnownProtocol[]>}
 */
export async function siteProtocols(root) {
  const bytes = await fetchBytes(`${root}data/protocols.json`);
  const parsed = bytes === null ? null : parseStrictJson(new TextDecoder().decode(bytes));
  const declared = parsed !== null && parsed.ok ? protocolsWithDeclarations(parsed.value) : null;
  return declared !== null && declared.ok ? declared.protocols : KNOWN_PROTOCOLS;
}

/** Evidence checks kept for entries that point at the same files (a manifest lists one result many times at most). */
const KEPT_CHECKS = 32;
/** @type {Map<string, Promise<EvidenceOutcome>>} */
const checked = new Map();

/**
 * The decompressed bytes of a gzip file, by the browser's own DecompressionStream, read chunk by chunk into one
 * buffer (in Chromium several times cheaper than letting fetch hand over the same bytes uncompressed); null where
 * the stream is missing or fails, or the bytes would pass `maxBytes`.
 * @param {string} url @param {number} maxBytes @returns {Promise<Uint8Array | null>}
 */
export async function fetchGunzipped(url, maxBytes) {
  if (typeof DecompressionStream !== "function") return null;
  try {
    const response = await fetch(url);
    if (!response.ok || response.body === null) return null;
    const reader = response.body.pipeThrough(new DecompressionStream("gzip")).getReader();
    /** @type {Uint8Array[]} */
    const parts = [];
    let length = 0;
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      length += read.value.length;
      if (length > maxBytes) {
        await reader.cancel();
        return null;
      }
      parts.push(read.value);
    }
    const bytes = new Uint8Array(length);
    parts.reduce((at, part) => (bytes.set(part, at), at + part.length), 0);
    return bytes;
  } catch {
    return null;
  }
}

/** The most bytes a pack may decompress to, whatever the build's data says. */
const MAX_PACK_BYTES = 1024 * 1024 * 1024;
/** Packs kept decompressed: the entries of one pack are checked one after another by the same verifier. */
const KEPT_PACKS = 3;
/** @type {Map<string, Promise<Uint8Array | null>>} */
const packs = new Map();

/**
 * The decompressed bytes of the pack at `location`, fetched once for the entries that share it.
 * @param {string} root @param {NonNullable<SiteEntry["pack"]>} pack @param {number} size
 */
function packBytes(root, pack, size) {
  let bytes = packs.get(pack.location);
  bytes ??= pack.encoding === "gzip" ? fetchGunzipped(root + pack.location, size) : fetchBytes(root + pack.location);
  packs.delete(pack.location);
  packs.set(pack.location, bytes);
  if (packs.size > KEPT_PACKS) packs.delete(/** @type {string} */ (packs.keys().next().value));
  return bytes;
}

/**
 * Reads the files of one entry: from its pack (one request for the files of several entries, gzip-compressed; the
 * build's transport, not evidence: every file cut from it is hashed by the check like any other) where the pack
 * holds the location, else file by file (also when the pack cannot be read).
 * @param {string} root @param {SiteEntry} site @returns {(location: string) => Promise<Uint8Array | null>}
 */
function entryFiles(root, site) {
  const pack = site.pack ?? null;
  const spans = pack === null ? [] : Object.values(pack.files).filter(Array.isArray);
  // The pack's decompressed size (a build before shared packs wrote none: its files end to end), and no byte more.
  const end = spans.reduce((most, [offset, length]) => Math.max(most, Number(offset) + Number(length)), 0);
  const size = Math.min(Math.max(end, Number(pack?.size ?? 0)), MAX_PACK_BYTES);
  /** @type {Promise<Uint8Array | null> | null} */
  let packed = null;
  return async (location) => {
    const at = pack !== null && Object.hasOwn(pack.files, location) ? pack.files[location] : undefined;
    if (pack !== null && Array.isArray(at) && Number.isSafeInteger(size) && typeof pack.location === "string") {
      packed ??= packBytes(root, pack, size);
      const bytes = await packed;
      const [offset, length] = at;
      if (
        bytes !== null && Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= 0 &&
        length >= 0 && offset + length <= bytes.length
      ) return bytes.subarray(offset, offset + length);
    }
    return fetchBytes(root + location);
  };
}

/**
 * The evidence of `site`, checked once per distinct set of files: the build stores each file under its SHA-256,
 * so equal locations are equal bytes, and the check of the evidence alone does not depend on the entry.
 * @param {string} root @param {SiteEntry} site @param {string} missingReason @param {readonly KnownProtocol[]} protocols
 * @returns {Promise<EvidenceOutcome>}
 */
function evidenceOf(root, site, missingReason, protocols) {
  const key = JSON.stringify([site.results, site.artifacts, site.folder_files, missingReason]);
  let check = checked.get(key);
  if (check === undefined) {
    const read = entryFiles(root, site);
    check = (async () =>
      checkEvidence({
        resultsBytes: site.results === null ? null : await read(site.results),
        missingReason,
        readArtifact: (path) => {
          const location = Object.hasOwn(site.artifacts, path) ? site.artifacts[path] : null;
          return typeof location === "string" ? read(location) : Promise.resolve(null);
        },
        // The build's listing of the folder at the evidence commit (none: the folder rule is not checked here).
        ...(Array.isArray(site.folder_files) ? { listFolder: () => Promise.resolve(site.folder_files ?? null) } : {}),
        protocols,
        readBundle: (corpus, file) => fetchBytes(`${root}data/bundle/${corpus}/${file}`),
      }))();
    if (checked.size >= KEPT_CHECKS) checked.delete(/** @type {string} */ (checked.keys().next().value));
  }
  checked.delete(key);
  checked.set(key, check);
  return check;
}

/**
 * @param {string} root absolute URL of the site's root, ending in /
 * @param {SiteEntry} site @param {EntryRead} read @param {readonly KnownProtocol[]} protocols
 * @returns {Promise<CheckOutcome>}
 */
export async function verifyEntry(root, site, read, protocols) {
  if (read === null) return unverifiable(["the site's data names an entry the manifest does not have"]);
  if (read.entry === null) return unverifiable(read.problems.map((p) => `manifest entry: ${p}`));
  if (site.run_id !== read.entry.run_id) return unverifiable(["the site's data does not match the manifest entry"]);
  const entry = read.entry;
  const expected = {
    resultsSha256: entry.results_sha256,
    runId: entry.run_id,
    protocolId: entry.protocol_id,
    reviewedAt: entry.reviewed_at,
  };
  if (site.build_problems.length > 0) {
    // Evidence the build lists for an entry it could not resolve still fails when it contradicts itself.
    const found = site.results === null ? null : await evidenceOf(root, site, "", protocols);
    return found?.state === "failed" ? judgeAgainstEntry(found, expected) : unverifiable(site.build_problems);
  }
  const found = await evidenceOf(root, site, `${entry.results_path} is not part of this site`, protocols);
  return judgeAgainstEntry(found, expected);
}
