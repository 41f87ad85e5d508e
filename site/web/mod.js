// @ts-check
/**
 * The site's browser code: the independent check of approved results (strict JSON, the twelve sanity verdicts,
 * the request records, counts, summaries and rounds rebuilt from the evidence, SHA-256 by Web Crypto) and the
 * manifest contract. Plain JavaScript modules with JSDoc types, served to browsers byte for byte as written: the
 * site needs no build step, and `deno check` type-checks these files with the project's strict options.
 *
 * Nothing here imports from the rest of the project (score/, runner/, report/ or the shared contract): where the
 * runner's scorer and this code disagree on a result, the site says so.
 */
export { checkResult, isSafeRelativePath, RESULT_FORMAT, RESULT_SCHEMA_VERSION } from "./check_result.js";
export { reviewProblems } from "./check_plausible.js";
export { parseStrictJson } from "./strict_json.js";
export { STATUS_RULES_WORDS } from "./check_status.js";
export { isObject } from "./evidence.js";
export { isSha256Hex, sha256Hex } from "./sha256.js";
export { KNOWN_PROTOCOLS, PROTOCOLS_FORMAT, protocolsWithDeclarations } from "./protocol.js";
export { isHandle, isResultsPath, isReviewUrl, MANIFEST_PATH, manifestText, readManifest } from "./manifest.js";

/** @typedef {import("./check_result.js").CheckOutcome} CheckOutcome */
/** @typedef {import("./protocol.js").KnownProtocol} KnownProtocol */
/** @typedef {import("./manifest.js").ManifestEntry} ManifestEntry */
/** @typedef {import("./manifest.js").ReadEntry} ReadEntry */
/** @typedef {import("./manifest.js").WithdrawnEntry} WithdrawnEntry */
