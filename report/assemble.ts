/**
 * Result assembly: turns the executor's facts, the provenance sections and the run's flags into the full Result
 * of the contract, with a `missing` entry for every null. All numbers come from score/; nothing is computed here.
 */
import {
  type Artifact,
  type ChatTemplateKwargs,
  type ExecutionFacts,
  type Fixture,
  type Hardware,
  type Model,
  type ProbedConfiguration,
  PROFILE_ID,
  PROTOCOL_ID,
  type ReasoningCadence,
  type RequestRecord,
  type Result,
  RESULT_FORMAT,
  type Sampling,
  SCHEMA_VERSION,
  type Software,
} from "../contract/mod.ts";
import {
  buildConcurrencyRounds,
  type BuiltRecord,
  countRequests,
  decideRunStatus,
  keptCadence,
  nonconformingReasonsOf,
  pooledItl,
  scoreQuality,
  summarizeRequests,
} from "../score/mod.ts";
import { nullPointers } from "./checks/_missing.ts";
import { childPointer, resolvePointer } from "./_pointer.ts";

/** Provenance sections with their own `missing` entries (absolute pointers) and nonconforming reasons. */
export interface ProvenanceSections {
  hardware: Hardware;
  software: Software;
  model: Model;
  configuration: ProbedConfiguration;
  missing: Record<string, string>;
  nonconformingReasons: string[];
}

export interface AssembleInput {
  runId: string;
  /** UTC ISO 8601. */
  startedAt: string;
  /** Sanitized command line. */
  command: string;
  optionalConcurrency: boolean;
  /** What the executor recorded beside the requests (durations, round walls, stop reason, /health questions). */
  execution: Omit<ExecutionFacts, "requests">;
  /** Every scheduled request in plan order, its record built once when it ended. */
  requests: readonly ScoredRequest[];
  protocol: {
    gitCommit: string | null;
    gitCommitReason: string | null;
    corpusSha256: string;
    modelCardRevision: string | null;
    modelCardRevisionReason: string | null;
  };
  provenance: ProvenanceSections;
  track: "default" | "custom";
  trackNotes: string | null;
  sampling: Sampling;
  chatTemplateKwargs: ChatTemplateKwargs;
  artifacts: Artifact[];
  /** Run-level reasons the caller found (not loopback, dialect unknown, simulated engine, prior requests...). */
  nonconformingReasons: string[];
  extensions: Record<string, unknown>;
}

/** A scheduled request with its record, built once from what the executor recorded. */
export interface ScoredRequest {
  fixture: Fixture;
  built: BuiltRecord;
}

export interface AssembledResult {
  result: Result;
  /** Every reason the run is nonconforming (also in extensions.nonconforming_reasons). */
  nonconformingReasons: string[];
  /** Pointers of nulls that had no specific reason and received a generic one (a defect to fix; tests expect []). */
  unexplainedNulls: string[];
}

/** Builds the whole result. Pure: the same input gives the same result. */
export function assembleResult(input: AssembleInput): AssembledResult {
  const missing: Record<string, string> = {};
  const reasons = [...input.nonconformingReasons, ...input.provenance.nonconformingReasons];
  const { requests, cadences, itl, maxSharedPrefixTokens } = gatherRequests(input, missing, reasons);
  const summaries = summarizeRequests(requests, {
    maxSharedPrefixTokens,
    optionalConcurrency: input.optionalConcurrency,
  });
  Object.assign(missing, summaries.missing);
  const rounds = input.optionalConcurrency
    ? buildConcurrencyRounds(requests, input.execution.roundWallsS)
    : { rounds: [], missing: {} };
  Object.assign(missing, rounds.missing);
  Object.assign(missing, input.provenance.missing);
  const uniqueReasons = [...new Set(reasons)];
  const decided = decideRunStatus({ nonconformingReasons: uniqueReasons, requests, maxSharedPrefixTokens });

  const { execution, protocol } = input;
  Object.assign(missing, runFactReasons(input));

  const result: Result = {
    format: RESULT_FORMAT,
    schema_version: SCHEMA_VERSION,
    protocol: {
      id: PROTOCOL_ID,
      git_commit: protocol.gitCommit,
      profile: PROFILE_ID,
      corpus_sha256: protocol.corpusSha256,
      model_card_revision: protocol.modelCardRevision,
    },
    run: {
      id: input.runId,
      started_at: input.startedAt,
      status: decided.status,
      required_duration_s: execution.requiredDurationS,
      optional_duration_s: execution.optionalDurationS,
      optional_concurrency: input.optionalConcurrency,
      command: input.command,
    },
    hardware: input.provenance.hardware,
    software: input.provenance.software,
    model: input.provenance.model,
    configuration: {
      track: input.track,
      track_notes: input.trackNotes,
      ...input.provenance.configuration,
      sampling: input.sampling,
      chat_template_kwargs: input.chatTemplateKwargs,
    },
    request_counts: countRequests(requests, input.optionalConcurrency),
    requests,
    summaries: summaries.summaries,
    concurrency_rounds: rounds.rounds,
    quality: scoreQuality(requests),
    artifacts: input.artifacts,
    missing: {},
    extensions: {
      ...input.extensions,
      reasoning_cadence: cadences,
      reasoning_itl: itl,
      nonconforming_reasons: uniqueReasons,
      status_reasons: decided.reasons,
      required_elapsed_s: execution.requiredElapsedS,
      stop_reason: execution.stopReason,
      health_checks: execution.healthChecks.map((h) => ({
        after_request_id: h.afterRequestId,
        ok: h.answer.ok,
        http_status: h.answer.status,
        message: h.answer.message,
      })),
    },
  };
  const unexplainedNulls = completeMissing(result, missing);
  result.missing = sortedMissing(missing);
  return { result, nonconformingReasons: uniqueReasons, unexplainedNulls };
}

/**
 * The records in plan order, each one's nulls at its pointer and its nonconforming reasons; the fixtures' caps.
 * A record's reasoning cadence goes to /extensions/reasoning_cadence/<request id> (the protocol defines no such
 * request field), with the reasons for its nulls there; its gaps, pooled by case, to /extensions/reasoning_itl.
 */
function gatherRequests(input: AssembleInput, missing: Record<string, string>, reasons: string[]) {
  const requests: RequestRecord[] = [];
  const cadences: Record<string, ReasoningCadence | null> = {};
  const fixtures: Fixture[] = [];
  input.requests.forEach(({ fixture, built }, i) => {
    placeRecord(built, i, { requests, cadences, missing });
    fixtures.push(fixture);
    reasons.push(...nonconformingReasonsOf(built, fixture.max_shared_prefix_tokens));
  });
  const maxSharedPrefixTokens = Object.fromEntries(fixtures.map((f) => [f.id, f.max_shared_prefix_tokens]));
  const withGaps = new Map(input.requests.map(({ built }) => [built.record.id, built.record.reasoning_cadence]));
  return { requests, cadences, itl: pooledItl(requests, (id) => withGaps.get(id)), maxSharedPrefixTokens };
}

/** Where one built record's parts go in a result: the record at `index`, its cadence by id, its nulls' reasons. */
export function placeRecord(
  built: Pick<BuiltRecord, "record" | "missing">,
  index: number,
  into: {
    requests: RequestRecord[];
    cadences: Record<string, ReasoningCadence | null>;
    missing: Record<string, string>;
  },
): void {
  const { reasoning_cadence, ...record } = built.record;
  into.requests[index] = record;
  into.cadences[record.id] = keptCadence(reasoning_cadence);
  for (const [pointer, reason] of Object.entries(built.missing)) {
    const cadence = /^\/reasoning_cadence(\/.*)?$/.exec(pointer);
    into.missing[
      cadence === null
        ? `/requests/${index}${pointer}`
        : `${childPointer("/extensions/reasoning_cadence", record.id)}${cadence[1] ?? ""}`
    ] = reason;
  }
}

/** Why each run-level fact the runner could not give is null: the commits, the durations, the track notes. */
function runFactReasons(input: AssembleInput): Record<string, string> {
  const { execution, protocol } = input;
  const missing: Record<string, string> = {};
  if (protocol.gitCommit === null) {
    missing["/protocol/git_commit"] = protocol.gitCommitReason ?? "the toolkit's commit could not be read";
  }
  if (protocol.modelCardRevision === null) {
    missing["/protocol/model_card_revision"] = protocol.modelCardRevisionReason ??
      "the model-card revision is not pinned yet";
  }
  if (execution.requiredDurationS === null) {
    missing["/run/required_duration_s"] = execution.requiredDurationReason ?? "the required stages did not finish";
  }
  if (execution.optionalDurationS === null) {
    missing["/run/optional_duration_s"] = execution.optionalDurationReason ??
      "the optional concurrency stage did not finish";
  }
  if (input.trackNotes === null) {
    missing["/configuration/track_notes"] = "no --track-notes was given; the runner cannot describe the setup itself";
  }
  return missing;
}

/**
 * Adds a generic reason for any null without one (returned, so callers can report it) and drops stale entries.
 * Reasons for nulls under /extensions are optional and kept where they point at a null.
 */
function completeMissing(result: Result, missing: Record<string, string>): string[] {
  const nulls = new Set(nullPointers(result));
  const unexplained: string[] = [];
  for (const pointer of nulls) {
    if (missing[pointer] === undefined) {
      unexplained.push(pointer);
      missing[pointer] = "not recorded: the runner has no specific reason for this value";
    }
  }
  for (const pointer of Object.keys(missing)) {
    if (nulls.has(pointer)) continue;
    const extension = pointer.startsWith("/extensions/") ? resolvePointer(result, pointer) : null;
    if (extension?.found !== true || extension.value !== null) delete missing[pointer];
  }
  return unexplained;
}

function sortedMissing(missing: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(missing).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
