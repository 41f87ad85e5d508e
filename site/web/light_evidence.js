// @ts-check
/**
 * Evidence version 5, read back for the site's own check (written for the site, sharing nothing with the runner):
 * a request of the frozen bundle names its fixture by reference (`request_ref`: the bundle, the fixture file's
 * SHA-256, the SHA-256 of the exact body sent) instead of carrying its messages, and chunk stamps are whole
 * microseconds, each after the first a difference from the one before (`chunk_offsets_us`,
 * `reasoning_chunk_offsets_us`); a timings chunk that is the usage chunk is written once (`timings_in_usage_chunk`
 * stands for it). The bundle is fetched once per corpus and kept: its MANIFEST.sha256 must hash to
 * the protocol's pinned corpus SHA-256, each fixture file to its manifest line. Every line comes back in the form
 * the other checks read: the messages rebuilt from the fixture (both hashes checked), the stamps in seconds.
 */
import { parseStrictJson } from "./strict_json.js";
import { sha256Hex, sha256HexOfText } from "./sha256.js";
import { isObject } from "./evidence.js";

/** The evidence version the site reads. */
export const EVIDENCE_VERSION = 5;
/** The one frozen bundle the site knows. */
const BUNDLE_NAME = "standard-v1";
/** The written stamp lists and the names the checks read them under. */
const STAMPS = /** @type {const} */ ([
  ["chunk_offsets_us", "chunk_offsets_s"],
  ["reasoning_chunk_offsets_us", "reasoning_chunk_offsets_s"],
]);

/**
 * Reads one file of the frozen bundle whose manifest hashes to `corpus`; null where it cannot be had.
 * @typedef {(corpus: string, file: string) => Promise<Uint8Array | null>} BundleRead
 */

/**
 * A fixture of the bundle: its file's SHA-256 and the messages it sends; or why it cannot be had.
 * @typedef {{ sha256: string, messages: { role: unknown, content: unknown }[] } | string} BundleFixture
 */

/** @type {Map<string, Promise<{ files: Map<string, string>, fixtures: Map<string, Promise<BundleFixture>> } | string>>} */
const bundles = new Map();

/**
 * The bundle's manifest (file -> SHA-256), fetched once per corpus and kept; or why it cannot be read.
 * @param {BundleRead} read @param {string} corpus
 */
function bundleOf(read, corpus) {
  let kept = bundles.get(corpus);
  if (kept === undefined) {
    kept = (async () => {
      const bytes = await read(corpus, "MANIFEST.sha256").catch(() => null);
      if (bytes === null) return "the frozen bundle's MANIFEST.sha256 cannot be fetched from the site";
      if ((await sha256Hex(bytes)) !== corpus) return "the site's copy of the frozen bundle is not the pinned corpus";
      const files = new Map();
      for (const line of new TextDecoder().decode(bytes).split("\n")) {
        const match = /^([0-9a-f]{64}) {2}([A-Za-z0-9._-]+)$/.exec(line);
        if (match !== null) files.set(match[2], match[1]);
      }
      return { files, fixtures: new Map() };
    })();
    // A failed fetch is tried again by the next check; a bundle that was read is kept.
    kept.then((b) => typeof b === "string" && bundles.delete(corpus));
    bundles.set(corpus, kept);
  }
  return kept;
}

/**
 * The fixture of request `id`, fetched once and checked against the manifest.
 * @param {BundleRead} read @param {string} corpus @param {string} id @returns {Promise<BundleFixture>}
 */
async function fixtureOf(read, corpus, id) {
  const bundle = await bundleOf(read, corpus);
  if (typeof bundle === "string") return bundle;
  const sha256 = bundle.files.get(`${id}.json`);
  if (sha256 === undefined) return `the frozen bundle has no request ${id}`;
  let kept = bundle.fixtures.get(id);
  if (kept === undefined) {
    kept = (async () => {
      const bytes = await read(corpus, `${id}.json`).catch(() => null);
      if (bytes === null || (await sha256Hex(bytes)) !== sha256) return `the bundle's ${id}.json is not its manifest's`;
      const parsed = parseStrictJson(new TextDecoder().decode(bytes));
      const fixture = parsed.ok && isObject(parsed.value) ? parsed.value : {};
      const messages = Array.isArray(fixture.messages) ? fixture.messages : [];
      return { sha256, messages: messages.map((m) => ({ role: m?.role, content: m?.content })) };
    })();
    bundle.fixtures.set(id, kept);
  }
  return kept;
}

/**
 * One written line in the form the checks read, or why its written form is broken.
 * @param {Record<string, unknown>} value @param {BundleRead} read @param {string} corpus
 * @returns {Promise<Record<string, unknown> | string>}
 */
async function readLine(value, read, corpus) {
  if (value.evidence_version !== EVIDENCE_VERSION) {
    return `evidence version ${JSON.stringify(value.evidence_version)}; the site reads version ${EVIDENCE_VERSION}`;
  }
  if (value.status === "skipped") return value;
  /** @type {Record<string, unknown>} */
  const out = Object.create(null);
  for (const [key, field] of Object.entries(value)) {
    if (key === "timings_in_usage_chunk") {
      if (field !== true || typeof value.usage_chunk !== "string" || Object.hasOwn(value, "timings_chunk")) {
        return "timings_in_usage_chunk must be true, beside a usage_chunk text and no timings_chunk";
      }
      out.timings_chunk = value.usage_chunk;
      continue;
    }
    const stamp = STAMPS.find(([written, inSeconds]) => key === written || key === inSeconds);
    if (stamp !== undefined && key === stamp[1]) return `${key} is written as ${stamp[0]} in version 5`;
    if (stamp === undefined) {
      if (key !== "request_ref") out[key] = field;
      continue;
    }
    if (!Array.isArray(field) || !field.every(Number.isSafeInteger)) return `${key} is not a list of integers`;
    let at = 0;
    out[stamp[1]] = field.map((/** @type {number} */ d) => (at += d) / 1e6);
  }
  const ref = value.request_ref;
  if (ref === undefined) return out;
  const request = value.request;
  if (!isObject(ref) || ref.bundle !== BUNDLE_NAME) return `request_ref does not name the bundle ${BUNDLE_NAME}`;
  if (!isObject(request) || Object.hasOwn(request, "messages")) {
    return "a line with request_ref must carry request without its messages";
  }
  const fixture = await fixtureOf(read, corpus, String(value.request_id));
  if (typeof fixture === "string") return fixture;
  if (ref.fixture_sha256 !== fixture.sha256) return "request_ref's fixture_sha256 is not the frozen fixture's";
  const body = { messages: fixture.messages, ...request };
  if ((await sha256HexOfText(JSON.stringify(body))) !== ref.body_sha256) {
    return "request_ref's body_sha256 is not that of the body rebuilt from the frozen fixture";
  }
  out.request = body;
  return out;
}

/**
 * The evidence lines in the form the checks read; each line whose written form is broken is a problem (and is
 * kept as written, so that the checks after it name what else is wrong). When none is, the check says how many
 * requests were rebuilt from the frozen bundle.
 * @param {import("./check_records.js").EvidenceLine[]} lines @param {BundleRead} read @param {string} corpus
 * @param {string[]} problems @param {string[]} checks
 * @returns {Promise<import("./check_records.js").EvidenceLine[]>}
 */
export async function readLightLines(lines, read, corpus, problems, checks) {
  const before = problems.length;
  const referenced = lines.filter((l) => l.parsed?.ok && isObject(l.parsed.value) && "request_ref" in l.parsed.value);
  const out = await Promise.all(lines.map(async (line, index) => {
    const parsed = line.parsed;
    if (parsed === null || !parsed.ok || !isObject(parsed.value)) return line;
    const value = await readLine(parsed.value, read, corpus);
    if (typeof value !== "string") return { text: line.text, parsed: { ...parsed, value } };
    problems.push(`outputs.jsonl line ${index + 1}: ${value}`);
    return line;
  }));
  if (problems.length === before && referenced.length > 0) {
    checks.push(
      `${referenced.length} requests sent by reference rebuilt from the frozen bundle ${BUNDLE_NAME} (its manifest ` +
        "against the pinned corpus, each fixture file and each body sent against its SHA-256)",
    );
  }
  return out;
}
