/** The shapes the evidence checks share: what they are checked with, and one parsed outputs.jsonl line. */
import type { Artifact, Fixture, Result } from "../../contract/mod.ts";
import type { CheckedRecord } from "./_requests.ts";
import type { LineFacts } from "../_evidence_line.ts";

/** The texts of a line that record values are computed from (see checks/_stated.ts). */
export interface StatedSources {
  /** The final answer and the tool calls (the sanity verdict reads them). */
  answer: string;
  /** The error and the finish reason (status, finish_reason and error derive from them). */
  error: string;
  /** The engine's usage and timings chunks (tokens, timings, rates). */
  engine: string;
  /** The whole line (a whole-record statement, "" pointer). */
  whole: string;
}

/** The outputs artifact and its bytes. */
export interface OutputsEvidence {
  /** Index of the artifact in /artifacts. */
  index: number;
  artifact: Artifact;
  bytes: Uint8Array;
}

/** What the request records and durations are checked with. */
export interface EvidenceCheckInput {
  evidence: OutputsEvidence;
  /** ID of every record, by index (null where the record has no string id). */
  ids: readonly (string | null)[];
  /** Records whose shape is valid. */
  records: readonly CheckedRecord[];
  /** The bundle's fixtures by ID; null: records are not rebuilt (only order, lines and durations are checked). */
  fixtures: ReadonlyMap<string, Fixture> | null;
  /** Run facts, where their shape is valid (null otherwise). */
  run: {
    requiredDurationS: number | null;
    optionalDurationS: number | null;
    optionalConcurrency: boolean;
  } | null;
  /** Concurrency rounds, where their shape is valid (null otherwise). */
  rounds: Result["concurrency_rounds"] | null;
  /** /extensions/record_overrides as results.json has it (undefined when absent). */
  recordOverrides: unknown;
  /** /extensions/resolved_configuration as results.json has it (undefined when absent). */
  resolvedConfiguration: unknown;
  /** /run/status where its shape is valid (null otherwise). */
  status: string | null;
  /** /extensions/round_queueing as results.json has it (undefined when absent). */
  roundQueueing: unknown;
  /** /extensions/reasoning_cadence as results.json has it (undefined when absent). */
  reasoningCadence: unknown;
  /** /extensions/reasoning_itl as results.json has it (undefined when absent). */
  reasoningItl: unknown;
  /** /configuration/server_capacity where its shape is valid (undefined otherwise). */
  serverCapacity: number | null | undefined;
  /** /run/started_at where its shape is valid (null otherwise). */
  startedAt: string | null;
}

/** One parsed line: its number (1-based), request id, the facts a record is built from, and its overrides. */
export interface EvidenceLine {
  lineNumber: number;
  id: string;
  status: string;
  facts: LineFacts;
  /** Record values the line states explicitly (computed before redaction changed their text). */
  overrides: Record<string, unknown>;
  /** The texts record values are computed from, as the line has them (see checks/_stated.ts). */
  texts: StatedSources;
}
