/**
 * contract/: the ground floor. The shared words of the whole toolkit, importing nothing of the project: the result
 * contract of the standard protocol, the evidence line (outputs.jsonl) and the result folder's file names, the protocol's shape (phases, case and request ids, repetitions, rounds,
 * caps, seeds, planned counts), the fixture type, the stream record the client produces and its end kinds, the
 * load sample, the SHA-256 helper and the seeded PRNG. Every other part may import it; it imports no part.
 */
export * from "./result.ts";
export * from "./evidence.ts";
export { BUNDLE_NAME, fixtureMessages, readWrittenLine, STAMP_LISTS, writtenLine } from "./evidence_form.ts";
export * from "./protocol.ts";
export type * from "./fixture.ts";
export * from "./stream.ts";
export type * from "./execution.ts";
export type * from "./load_sample.ts";
export * from "./sha256.ts";
export * from "./prng.ts";
export * from "./dialect.ts";
export { isJsonObject } from "./json.ts";
export {
  type AnswerState,
  type EndpointLoadSummary,
  type LengthCheck,
  LOAD_LINE_FORMATS,
  LOAD_LINE_SCHEMAS,
  LOAD_LINE_VERSIONS,
  LOAD_SUMMARY,
  type LoadDistributions,
  type LoadPhases,
  type LoadRequestRow,
  type LoadRowStatus,
  NUMERIC_COLUMNS,
  type ObservedConcurrency,
  SENT_ONLY,
  type Slo,
  type ThroughputBin,
} from "./load_lines.ts";
export { loadLinesJsonSchema } from "./load_lines_schema.ts";
