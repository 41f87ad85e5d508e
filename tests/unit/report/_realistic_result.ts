/**
 * A realistic, complete results.json for tests, built the way a run builds one: real fixtures of the committed
 * bundle, llama.cpp-shaped stream outcomes, request records, summaries, counts, rounds, quality and status from
 * score/, outputs.jsonl written line by line with the run's own `outputLine` (stage durations and round wall times
 * agree with its dispatch stamps and end offsets), artifacts written to a fresh temporary folder and hashed. It
 * passes the validator with zero problems.
 *
 * What it holds (required suite): warm-up capped at 128; performance short r1 completed, r2 capped, r3
 * completed; every 4K and 16K request capped except prompt-4k r2 (completed); eleven sanity answers correct
 * and R3 answered wrongly ("DELTA-609"); hardware storage, build options, model revisions and a few engine
 * options not measured (null with reasons). With `optionalConcurrency`, twelve short-burst requests follow on a
 * one-slot server, round 2's client 3 capped.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createHash } from "node:crypto";
import { loadBundle } from "../../../fixtures/mod.ts";
import {
  type Artifact,
  type ExecutedRequest,
  type Fixture,
  PROFILE_ID,
  PROTOCOL_ID,
  type ReasoningCadence,
  type RequestRecord,
  type Result,
  RESULT_FORMAT,
  SCHEMA_VERSION,
  type SlotReading,
  type StreamOutcome,
  type ToolCallRecord,
} from "../../../contract/mod.ts";
import {
  buildConcurrencyRounds,
  buildRequestRecord,
  checkResolvedConfig,
  countRequests,
  decideRunStatus,
  pooledItl,
  roundQueueing,
  scoreQuality,
  stageDurationS,
  summarizeRequests,
  wallS,
} from "../../../score/mod.ts";
import { outputLine } from "../../../report/result_folder.ts";
import { writtenLine } from "../../../contract/mod.ts";

import { placeRecord } from "../../../report/assemble.ts";
import { DIGEST_KEYS, measuredDigest } from "../../../report/measured.ts";
import { renderReadme } from "../../../report/render.ts";
import { PICTURES_RENDERER_KEY, renderResultPictures } from "../../../report/pictures.ts";

/** The line the run writes for `request`: its written form (the frozen messages by reference, stamps in µs). */
export function writtenOf(request: ExecutedRequest, status: RequestRecord["status"]): Record<string, unknown> {
  const line = JSON.parse(JSON.stringify(outputLine(request, status)));
  return writtenLine(line, request.kind === "skipped" ? null : { body: request.body, fixture: request.fixture });
}

/** A realistic result and the folder it was written to. */
export interface RealisticResult {
  result: Result;
  /** results.json as written (two-space indented JSON). */
  text: string;
  /** Temporary result folder holding results.json and every artifact. */
  dir: string;
  /** max_shared_prefix_tokens of every request ID of the bundle. */
  maxSharedPrefixTokens: Record<string, number>;
  /** Every fixture of the bundle (the validator's `fixtures`). */
  fixtures: Fixture[];
  /** Reads a file of `dir` by relative path; null when absent (the validator's readArtifact). */
  readArtifact: (relativePath: string) => Promise<Uint8Array | null>;
  /** Removes `dir`. */
  cleanup: () => Promise<void>;
}

/** Options of `buildRealisticResult`. */
export interface RealisticOptions {
  /** Also run the optional concurrency stage (34 records). Default false (22 records). */
  optionalConcurrency?: boolean;
  /**
   * Finish the folder as a run does: README.md written and its hash recorded, and the measured digest of the
   * result and its outputs in extensions (what `report` and `--seal` compare with). Default false.
   */
  asWritten?: boolean;
  /**
   * Faults with private text in their evidence: sanity-I3 fails (HTTP 500 whose error text names a private path,
   * FAULT_MESSAGE) and sanity-T3 and sanity-T4 are skipped (SKIP_REASON), so the run is partial. Default false.
   */
  faults?: boolean;
  /** Draw the pictures as a run does (listed as provenance artifacts, the renderer recorded). Default false. */
  pictures?: boolean;
  /** Run id and start (another run of the same configuration). */
  runId?: string;
  startedAt?: string;
}

const STARTED_EPOCH_MS = Date.UTC(2026, 10, 29, 14, 3, 7, 123);
const CAPPED = new Set([
  "warmup",
  "performance-short-r2",
  "performance-prompt-4k-r1",
  "performance-prompt-4k-r3",
  "performance-prompt-16k-r1",
  "performance-prompt-16k-r2",
  "performance-prompt-16k-r3",
  "concurrency-r2-c3",
]);
const WRONG_ANSWERS: Readonly<Record<string, string>> = { "sanity-R3": "DELTA-609" };
/** The engine's error text of the failed request of `faults` (it names a private path). */
export const FAULT_MESSAGE = "cannot map /srv/alice-private/models/q.gguf: out of memory";
/** Why the two requests of `faults` were skipped (it names a private host). */
export const SKIP_REASON = "the engine on gpu-box-alice stopped answering";
const FAILED = "sanity-I3";
const SKIPPED = new Set(["sanity-T3", "sanity-T4"]);

function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The request body a run sends for a fixture (llama-server dialect). */
function bodyOf(fixture: Fixture): Record<string, unknown> {
  return {
    messages: fixture.messages,
    ...(fixture.tools === null ? {} : { tools: fixture.tools, tool_choice: fixture.tool_choice }),
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: fixture.max_output_tokens,
    seed: fixture.seed,
    temperature: 1.0,
    top_p: 0.95,
    top_k: 20,
    min_p: 0.0,
    presence_penalty: 0.0,
    repetition_penalty: 1.0,
    repeat_penalty: 1.0,
    reasoning_effort: "xhigh",
    chat_template_kwargs: { enable_thinking: true, preserve_thinking: true },
  };
}

/**
 * What llama-server's GET /slots shows after a request on its one slot: the request's settings as float32 (top_p
 * 0.95 reads 0.949999988079071), the cap as n_predict, and its own reasoning and chat format.
 */
function slotOf(body: Record<string, unknown>, index: number): SlotReading {
  const f = (key: string) => Math.fround(body[key] as number);
  return {
    kind: "slot",
    source: "GET /slots",
    matched_by: `the only task after id_task ${index * 2 - 1} (slot 0, id_task ${index * 2 + 1})`,
    slot_id: 0,
    id_task: index * 2 + 1,
    params: {
      seed: body["seed"],
      temperature: f("temperature"),
      top_k: body["top_k"],
      top_p: f("top_p"),
      min_p: f("min_p"),
      repeat_penalty: f("repeat_penalty"),
      presence_penalty: f("presence_penalty"),
      frequency_penalty: 0,
      n_predict: body["max_tokens"],
      reasoning_format: "deepseek",
      chat_format: "Hermes 2 Pro",
    },
  };
}

/** The answer a correct model gives to a sanity fixture (or the scripted wrong one). */
function answerOf(fixture: Fixture): { answer: string; toolCalls: ToolCallRecord[] } {
  const wrong = WRONG_ANSWERS[fixture.id];
  if (wrong !== undefined) return { answer: wrong, toolCalls: [] };
  const expected = fixture.expected;
  if (expected === null) {
    return { answer: "A hash table hashes the key to pick a bucket, then compares keys.", toolCalls: [] };
  }
  if (expected.kind === "json") return { answer: JSON.stringify(expected.value), toolCalls: [] };
  if (expected.kind === "text") return { answer: expected.value, toolCalls: [] };
  const call = {
    index: 0,
    id: "call_0",
    type: "function",
    name: expected.name,
    arguments: JSON.stringify(expected.arguments),
  };
  return { answer: "", toolCalls: [call] };
}

/**
 * A llama.cpp-shaped outcome dispatched at `dispatchedMs`: prompt at ~900 tok/s (fresh tokens), decode at ~42 tok/s,
 * one token re-evaluated; `queuedS` is the time it waited for the server's one slot.
 */
function outcomeOf(fixture: Fixture, index: number, queuedS: number, dispatchedMs: number): StreamOutcome {
  const capped = CAPPED.has(fixture.id);
  const { answer, toolCalls } = answerOf(fixture);
  const outputTokens = capped ? fixture.max_output_tokens : 180 + (index * 37) % 200;
  const cached = index === 0 ? 0 : Math.min(fixture.max_shared_prefix_tokens, 4);
  const promptN = fixture.input_tokens - cached;
  const promptMs = Math.round((promptN / (880 + (index % 5) * 11)) * 1000 * 1000) / 1000;
  const predictedMs = Math.round((outputTokens / (41.5 + (index % 7) * 0.3)) * 1000 * 1000) / 1000;
  const ttft = queuedS + promptMs / 1000 + 0.031;
  const end = queuedS + promptMs / 1000 + predictedMs / 1000 + 0.004;
  const answered = !capped;
  const usage = {
    prompt_tokens: fixture.input_tokens,
    completion_tokens: outputTokens,
    total_tokens: fixture.input_tokens + outputTokens,
    prompt_tokens_details: { cached_tokens: cached },
  };
  const timings = {
    cache_n: cached,
    prompt_n: promptN,
    prompt_ms: promptMs,
    predicted_n: outputTokens,
    predicted_ms: predictedMs,
    predicted_per_second: ((outputTokens - 1) / predictedMs) * 1000,
  };
  const firstDeltaS = Math.round(ttft * 1e6) / 1e6;
  const firstAnswerS = answered ? Math.round((end - 0.35) * 1e6) / 1e6 : null;
  // A stamp per chunk, ~24 ms apart: six reasoning chunks from the first delta, four answer chunks from the answer.
  // Whole microseconds, as the client keeps them (the line writes them so).
  const stamps = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => Math.floor((from + i * 0.0241) * 1e6) / 1e6);
  // llama-server's last chunk: no choices, usage and timings together.
  const lastChunk = JSON.stringify({ choices: [], id: `chatcmpl-${index}`, usage, timings });
  return {
    dispatched_at_epoch_ms: dispatchedMs,
    // The executor's monotonic clock reads the same as the epoch here (the run started at STARTED_EPOCH_MS).
    dispatch_clock_ms: dispatchedMs,
    end: "finished",
    http_status: 200,
    finish_reason: capped ? "length" : toolCalls.length > 0 ? "tool_calls" : "stop",
    error_message: null,
    first_delta_kind: "reasoning",
    reasoning_text: "",
    answer_text: answered ? answer : "",
    tool_calls: answered ? toolCalls : [],
    usage,
    timings,
    usage_chunk: lastChunk,
    timings_chunk: lastChunk,
    offsets: {
      first_byte_s: queuedS + 0.002,
      headers_s: queuedS + 0.003,
      first_delta_s: firstDeltaS,
      first_answer_s: firstAnswerS,
      end_s: Math.round(end * 1e6) / 1e6,
    },
    events: outputTokens + 2,
    keepalives: 0,
    reasoning_chunk_offsets_s: stamps(firstDeltaS, 6),
    chunk_offsets_s: firstAnswerS === null ? [] : stamps(firstAnswerS, 4),
  };
}

/** The outcome of a request the engine answered with HTTP 500 and an error text, after its headers. */
function failedOutcome(outcome: StreamOutcome): Partial<StreamOutcome> {
  return {
    end: "http_error",
    http_status: 500,
    finish_reason: null,
    error_message: FAULT_MESSAGE,
    first_delta_kind: null,
    answer_text: "",
    tool_calls: [],
    usage: null,
    timings: null,
    usage_chunk: null,
    timings_chunk: null,
    offsets: {
      ...outcome.offsets,
      first_delta_s: null,
      first_answer_s: null,
      // The error body is the last thing read: the stream ends just after its first byte, with no chunk stamped.
      end_s: (outcome.offsets.headers_s ?? 0.003) + 0.001,
    },
    events: 0,
    reasoning_chunk_offsets_s: [],
    chunk_offsets_s: [],
  };
}

/** The dialect and reasoning budget the run sent, which results.json's extensions and config.json both record. */
const SENT_SETTINGS = {
  dialect: "llama.cpp",
  dialect_evidence: '/props build_info "b4520-80fb11a" has llama.cpp\'s b<build>-<commit> form',
  reasoning_budget_tokens_sent: -1,
  reasoning_budget_why: "llama-server reads -1 as its --reasoning-budget (default -1, unrestricted)",
};

/** The runner's config.json for a result: its options, the operator's declarations and the settings sent. */
function configOf(result: Result): Record<string, unknown> {
  const { model, software, configuration } = result;
  return {
    command: result.run.command,
    base_url: "http://127.0.0.1:8080",
    optional_concurrency: result.run.optional_concurrency,
    track: configuration.track,
    track_notes: configuration.track_notes,
    declared: {
      model_id: model.id,
      model_revision: model.revision,
      source_revision: model.source_revision,
      tokenizer_revision: model.tokenizer_revision,
      quantization: model.quantization,
      custom_pack: model.custom_pack,
      background: result.hardware.background_workloads,
      build_options: software.build_options,
      engine_commit: software.strata_commit,
      engine_source: null,
      engine_args: null,
    },
    pack_dir: null,
    check_template: true,
    simulated: false,
    ...SENT_SETTINGS,
    sampling: configuration.sampling,
    chat_template_kwargs: configuration.chat_template_kwargs,
    request_settings_example: null,
  };
}

function provenance(templateSha: string, missing: Record<string, string>): Pick<
  Result,
  "hardware" | "software" | "model" | "configuration"
> {
  Object.assign(missing, {
    "/hardware/storage": "the storage probe needs lsblk, which is not installed on this machine",
    "/software/build_options": "the runner cannot read build options from a server; pass --build-options",
    "/model/revision": "no --model-revision was given; the runner never guesses it",
    "/model/source_revision": "no --source-revision was given; the runner never guesses it",
    "/model/tokenizer_revision": "no --tokenizer-revision was given; the runner never guesses it",
    "/model/custom_pack": "no custom pack: the published quantization is used as downloaded",
    "/configuration/expert_cache": "llama-server has no expert cache setting to report",
    "/configuration/mtp": "llama-server reports no multi-token prediction setting",
    "/configuration/calibration": "llama-server reports no calibration setting",
  });
  return {
    hardware: {
      gpus: [{
        device_index: 0,
        name: "NVIDIA GeForce RTX 3060",
        memory_bytes: 12884901888,
        memory_kind: "dedicated",
        power_limit_w: 170,
      }],
      cpu: "AMD Ryzen 7 5800X 8-Core Processor",
      ram_bytes: 34359738368,
      storage: null,
      background_workloads: ["desktop session (GNOME)"],
    },
    software: {
      os: { name: "Ubuntu", version: "24.04.1 LTS (Linux 6.8.0-49-generic)" },
      drivers: [{ name: "nvidia", version: "550.120" }],
      runtime: [{ name: "cuda", version: "12.4" }],
      strata_commit: "80fb11a3c1d5e7f9a2b4c6d8e0f1a3b5c7d9e1f3",
      engine_version: "b4520-80fb11a",
      build_kind: "source",
      runner_commit: "2b7c0d9e4f1a6b3c8d5e2f7a4b1c6d3e8f5a2b7c",
      build_options: null,
    },
    model: {
      id: "Qwen/Qwen3.8-Flash-Next",
      revision: null,
      source_revision: null,
      quantization: "IQ3_XXS",
      files: [
        { path: "Qwen3.8-Flash-Next-IQ3_XXS-00001-of-00002.gguf", sha256: sha256("shard one") },
        { path: "Qwen3.8-Flash-Next-IQ3_XXS-00002-of-00002.gguf", sha256: sha256("shard two") },
      ],
      tokenizer_revision: null,
      custom_pack: null,
    },
    configuration: {
      track: "custom",
      track_notes: "llama-server b4520 built from source with CUDA; -c 32768 -ngl 99, one slot",
      context_tokens: 32768,
      server_capacity: 1,
      kv_cache: { cache_type_k: "f16", cache_type_v: "f16" },
      expert_cache: null,
      offloading: { n_gpu_layers: 99 },
      prefill: { n_batch: 2048, n_ubatch: 512 },
      mtp: null,
      calibration: null,
      experimental_options: {},
      template: { path: "chat_template.jinja", sha256: templateSha },
      sampling: {
        temperature: 1.0,
        top_p: 0.95,
        top_k: 20,
        min_p: 0.0,
        presence_penalty: 0.0,
        repetition_penalty: 1.0,
        reasoning_effort: "xhigh",
      },
      chat_template_kwargs: { enable_thinking: true, preserve_thinking: true },
    },
  };
}

/** Builds the realistic result, writes its folder, and returns both. Call `cleanup()` when done. */
export async function buildRealisticResult(options: RealisticOptions = {}): Promise<RealisticResult> {
  const optional = options.optionalConcurrency ?? false;
  // Every clock of the evidence starts at the run's start (the plausibility rules hold the stamps to it).
  const startedMs = options.startedAt === undefined ? STARTED_EPOCH_MS : Date.parse(options.startedAt);
  const bundle = await loadBundle();
  const maxSharedPrefixTokens = Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.max_shared_prefix_tokens]));
  const fixtures = bundle.fixtures.filter((f) => optional || f.phase !== "concurrency");
  const missing: Record<string, string> = {};
  const requests: RequestRecord[] = [];
  const cadences: Record<string, ReasoningCadence | null> = {};
  const placed = { requests, cadences, missing };
  // Each record's cadence with its gaps, as built: results.json pools them per case.
  const withGaps = new Map<string, ReturnType<typeof buildRequestRecord>["record"]["reasoning_cadence"]>();
  const executed: ExecutedRequest[] = [];
  // The executor's clock as the run sees it: sequential requests back to back (50 ms apart), the four clients of a
  // round released together, the next round after the slowest client of the last one.
  let clockMs = startedMs + 2000;
  let roundStartMs: number | null = null;
  fixtures.forEach((fixture, index) => {
    const burst = fixture.phase === "concurrency";
    const client = burst ? Number(/-c(\d+)$/.exec(fixture.id)?.[1] ?? 1) - 1 : 0;
    if (burst && client === 0) roundStartMs = clockMs;
    const dispatchedMs = burst && roundStartMs !== null ? roundStartMs + client : clockMs;
    const concurrency = burst ? 4 : 1;
    if (options.faults && SKIPPED.has(fixture.id)) {
      executed.push({ kind: "skipped", fixture, concurrency, reason: SKIP_REASON });
      const built = buildRequestRecord(fixture, { kind: "skipped", reason: SKIP_REASON, concurrency });
      placeRecord(built, index, placed);
      withGaps.set(fixture.id, built.record.reasoning_cadence);
      return;
    }
    // One slot: client j of a round waits for the j-1 before it.
    const outcome = outcomeOf(fixture, index, client * 11.5, dispatchedMs);
    if (options.faults && fixture.id === FAILED) Object.assign(outcome, failedOutcome(outcome));
    clockMs = Math.max(clockMs, Math.ceil(dispatchedMs + outcome.offsets.end_s * 1000) + 50);
    const dispatchOffsetS = (dispatchedMs - startedMs) / 1000;
    const body = bodyOf(fixture);
    executed.push({ kind: "outcome", fixture, concurrency, body, outcome, dispatchOffsetS, slot: slotOf(body, index) });
    const built = buildRequestRecord(fixture, { kind: "outcome", outcome, concurrency });
    placeRecord(built, index, placed);
    withGaps.set(fixture.id, built.record.reasoning_cadence);
  });
  const sent = executed.filter((r): r is ExecutedRequest & { kind: "outcome" } => r.kind === "outcome");
  const spanOf = (r: ExecutedRequest & { kind: "outcome" }) => ({
    dispatchOffsetS: r.dispatchOffsetS,
    endOffsetS: r.outcome.offsets.end_s,
  });
  const spanS = (group: readonly (ExecutedRequest & { kind: "outcome" })[]) => wallS(group.map(spanOf));
  const burstRequests = sent.filter((r) => r.fixture.phase === "concurrency");
  const roundWallsS = optional
    ? [1, 2, 3].map((round) => spanS(burstRequests.filter((r) => r.fixture.round === round)))
    : [];
  const summaries = summarizeRequests(requests, { maxSharedPrefixTokens, optionalConcurrency: optional });
  Object.assign(missing, summaries.missing);
  const rounds = optional ? buildConcurrencyRounds(requests, roundWallsS) : { rounds: [], missing: {} };
  Object.assign(missing, rounds.missing);
  const status = decideRunStatus({ nonconformingReasons: [], requests, maxSharedPrefixTokens });

  const dir = await mkdtemp(join(tmpdir(), "strata-report-"));
  const files: [Artifact["kind"], string, string][] = [
    ["engine_log", "engine.log", "main: server is listening on http://127.0.0.1:8080\nslot launch_slot_: id 0\n"],
    [
      "outputs",
      "outputs.jsonl",
      executed.map((r) => JSON.stringify(writtenOf(r, requests[executed.indexOf(r)]!.status))).join("\n") + "\n",
    ],
    ["provenance", "chat_template.jinja", "{%- for message in messages %}{{ message.content }}{%- endfor %}\n"],
  ];
  const artifacts: Artifact[] = [];
  for (const [kind, path, content] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
    artifacts.push({ kind, path, sha256: sha256(content) });
  }
  const templateSha = artifacts.find((a) => a.path === "chat_template.jinja")?.sha256 ?? "";
  const sections = provenance(templateSha, missing);
  if (!optional) missing["/run/optional_duration_s"] = "the optional concurrency stage was not selected";
  if (options.faults) missing["/run/required_duration_s"] = `the required stages did not finish: ${SKIP_REASON}`;
  missing["/protocol/model_card_revision"] = "the model-card revision is not pinned until the protocol is activated";

  const required = sent.filter((r) => r.fixture.phase !== "concurrency");
  const result: Result = {
    format: RESULT_FORMAT,
    schema_version: SCHEMA_VERSION,
    protocol: {
      id: PROTOCOL_ID,
      git_commit: "2b7c0d9e4f1a6b3c8d5e2f7a4b1c6d3e8f5a2b7c",
      profile: PROFILE_ID,
      corpus_sha256: bundle.corpusSha256,
      model_card_revision: null,
    },
    run: {
      id: "20261129T140307Z-3f9a",
      started_at: new Date(startedMs).toISOString(),
      status: status.status,
      required_duration_s: options.faults ? null : stageDurationS(spanOf(required[0]!), spanOf(required.at(-1)!)),
      optional_duration_s: optional ? spanS(burstRequests) : null,
      optional_concurrency: optional,
      command: `strata-bench run --url http://127.0.0.1:8080 --track custom${
        optional ? " --optional-concurrency" : ""
      }`,
    },
    ...sections,
    request_counts: countRequests(requests, optional),
    requests,
    summaries: summaries.summaries,
    concurrency_rounds: rounds.rounds,
    quality: scoreQuality(requests),
    artifacts,
    missing: Object.fromEntries(Object.entries(missing).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    extensions: {
      ...SENT_SETTINGS,
      nonconforming_reasons: [],
      status_reasons: status.reasons,
      simulated_engine: false,
      resolved_configuration: {
        source: "GET /slots after each batch",
        requests: Object.fromEntries(sent.map((r) => [r.fixture.id, checkResolvedConfig(r.body, r.slot!)])),
      },
      reasoning_cadence: cadences,
      reasoning_itl: pooledItl(requests, (id) => withGaps.get(id)),
      round_queueing: optional
        ? roundQueueing(
          requests,
          Object.fromEntries(sent.map((r) => [r.fixture.id, r.outcome.offsets.headers_s])),
          sections.configuration.server_capacity,
        )
        : [],
    },
  };
  // config.json as the run writes it: the same facts as results.json (report checks that they agree).
  const config = JSON.stringify(configOf(result), null, 2) + "\n";
  await writeFile(join(dir, "config.json"), config);
  result.artifacts.unshift({ kind: "config", path: "config.json", sha256: sha256(config) });
  if (options.runId !== undefined) result.run.id = options.runId;
  if (options.pictures) {
    for (const picture of await renderResultPictures(result)) {
      await writeFile(join(dir, picture.file), picture.svg);
      result.artifacts.push({ kind: "provenance", path: picture.file, sha256: sha256(picture.svg) });
      result.extensions![PICTURES_RENDERER_KEY] = picture.renderer;
    }
  }
  if (options.asWritten) {
    const readme = new TextEncoder().encode(renderReadme(result));
    await writeFile(join(dir, "README.md"), readme);
    const outputs = files.find(([kind]) => kind === "outputs")![2];
    result.extensions![DIGEST_KEYS.readme] = sha256(readme);
    result.extensions![DIGEST_KEYS.digest] = measuredDigest(
      result as unknown as Record<string, unknown>,
      "outputs.jsonl",
      outputs,
    );
  }
  const text = JSON.stringify(result, null, 2) + "\n";
  await writeFile(join(dir, "results.json"), text);
  return {
    result: JSON.parse(text) as Result,
    text,
    dir,
    maxSharedPrefixTokens,
    fixtures: bundle.fixtures,
    readArtifact: async (relativePath) => {
      try {
        return new Uint8Array(await readFile(join(dir, relativePath)));
      } catch (error) {
        if ((error as { code?: string }).code === "ENOENT") return null;
        throw error;
      }
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
