/**
 * The result contract to the letter: every key a genuine run writes outside `extensions` is a key the protocol's
 * "Result contract" names, and every key it names is written. The list below is typed from that section by hand,
 * not derived from our schema, so a field our code adds in the wrong place fails here even if the schema agrees.
 */
import assert from "node:assert/strict";
import { cleanup, runScripted, type ScriptedRun } from "./_harness.ts";

const COUNTS = ["planned", "attempted", "completed", "truncated", "failed", "skipped"];
const PHASES = ["warmup", "performance", "sanity", "concurrency"];

/** Paths the contract names; `[]` stands for every element of an array. */
const CONTRACT: string[] = [
  "/format",
  "/schema_version",
  ...["id", "git_commit", "profile", "corpus_sha256", "model_card_revision"].map((k) => `/protocol/${k}`),
  ...[
    "id",
    "started_at",
    "status",
    "required_duration_s",
    "optional_duration_s",
    "optional_concurrency",
    "command",
  ].map((k) => `/run/${k}`),
  "/hardware/cpu",
  "/hardware/ram_bytes",
  "/hardware/background_workloads",
  "/hardware/gpus",
  ...["device_index", "name", "memory_bytes", "memory_kind", "power_limit_w"].map((k) => `/hardware/gpus/[]/${k}`),
  "/hardware/storage",
  ...["kind", "model", "bus"].map((k) => `/hardware/storage/[]/${k}`),
  "/software/os/name",
  "/software/os/version",
  "/software/drivers",
  "/software/drivers/[]/name",
  "/software/drivers/[]/version",
  "/software/runtime",
  "/software/runtime/[]/name",
  "/software/runtime/[]/version",
  ...["strata_commit", "engine_version", "build_kind", "runner_commit", "build_options"].map((k) => `/software/${k}`),
  ...["id", "revision", "source_revision", "quantization", "tokenizer_revision", "custom_pack"].map((k) =>
    `/model/${k}`
  ),
  "/model/files",
  "/model/files/[]/path",
  "/model/files/[]/sha256",
  ...["track", "track_notes", "context_tokens", "server_capacity"].map((k) => `/configuration/${k}`),
  ...["kv_cache", "expert_cache", "offloading", "prefill", "mtp", "calibration", "experimental_options"].map((k) =>
    `/configuration/${k}`
  ),
  "/configuration/template/path",
  "/configuration/template/sha256",
  ...["temperature", "top_p", "top_k", "min_p", "presence_penalty", "repetition_penalty", "reasoning_effort"].map(
    (k) => `/configuration/sampling/${k}`,
  ),
  "/configuration/chat_template_kwargs/enable_thinking",
  "/configuration/chat_template_kwargs/preserve_thinking",
  ...PHASES.flatMap((p) => COUNTS.map((c) => `/request_counts/${p}/${c}`)),
  ...[
    "id",
    "phase",
    "case_id",
    "repetition",
    "seed",
    "max_output_tokens",
    "concurrency",
    "round",
    "status",
    "finish_reason",
    "error",
    "first_delta_kind",
    "token_accounting_note",
    "evaluation",
  ].map((k) => `/requests/[]/${k}`),
  "/requests/[]/error/kind",
  "/requests/[]/error/message",
  ...["input_tokens", "cached_tokens", "read_tokens", "output_tokens", "decode_tokens"].map((k) =>
    `/requests/[]/tokens/${k}`
  ),
  ...["prompt_s", "decode_s", "ttft_s", "first_answer_s", "total_s"].map((k) => `/requests/[]/timings/${k}`),
  "/requests/[]/metrics/prompt_tps",
  "/requests/[]/metrics/decode_tps",
  ...[
    "input_tokens",
    "cached_tokens",
    "read_tokens",
    "output_tokens",
    "decode_tokens",
    "engine_timings",
    "client_timings",
  ].map((k) => `/requests/[]/sources/${k}`),
  // The per-case verdict ("Per-case verdicts are in requests"): which category, passed, and why.
  "/requests/[]/evaluation/category",
  "/requests/[]/evaluation/passed",
  "/requests/[]/evaluation/reason",
  ...[
    "phase",
    "case_id",
    "concurrency",
    "metric",
    "unit",
    "median",
    "min",
    "max",
    "n",
    "included_request_ids",
    "excluded",
  ].map((k) => `/summaries/[]/${k}`),
  "/summaries/[]/excluded/[]/request_id",
  "/summaries/[]/excluded/[]/reason",
  ...["round", "request_ids", "wall_s", "output_tokens", "aggregate_tps", "failed"].map((k) =>
    `/concurrency_rounds/[]/${k}`
  ),
  "/quality/passed",
  "/quality/total",
  ...["instruction", "retrieval", "tool_call"].flatMap((c) => [
    `/quality/categories/${c}/passed`,
    `/quality/categories/${c}/total`,
  ]),
  "/artifacts/[]/kind",
  "/artifacts/[]/path",
  "/artifacts/[]/sha256",
  "/missing",
  "/extensions",
];

/** Objects whose keys are not the contract's to name: engine option names, pointers, and extensions. */
const OPEN = new Set([
  "/configuration/kv_cache",
  "/configuration/expert_cache",
  "/configuration/offloading",
  "/configuration/prefill",
  "/configuration/mtp",
  "/configuration/calibration",
  "/configuration/experimental_options",
  "/missing",
  "/extensions",
]);

/** Leaf and object paths a result holds, with array elements folded into `[]`. */
function keyPaths(value: unknown, at = "", into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) keyPaths(item, `${at}/[]`, into);
  } else if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      const path = `${at}/${key}`;
      into.add(path);
      if (!OPEN.has(path)) keyPaths(inner, path, into);
    }
  }
  return into;
}

/** A contract path is implied by its deeper ones; only leaves of the list are checked for presence. */
function leaves(paths: string[]): string[] {
  return paths.filter((p) => !paths.some((q) => q.startsWith(`${p}/`)));
}

Deno.test("a genuine run with the optional stage writes exactly the contract's keys outside extensions", async () => {
  let run: ScriptedRun | undefined;
  try {
    // One sanity request fails, so the error object is written too.
    run = await runScripted({
      run: { optionalConcurrency: true },
      mock: { script: { "sanity-R2": { fault: { kind: "http_error", status: 500, message: "engine fault" } } } },
    });
    assert.deepEqual(run.problems, []);
    const written = keyPaths(run.result);
    const named = new Set(
      CONTRACT.flatMap((p) => p.split("/").slice(1).map((_, i, a) => `/${a.slice(0, i + 1).join("/")}`)),
    );
    const beyond = [...written].filter((p) => !named.has(p)).sort();
    assert.deepEqual(beyond, [], "keys outside extensions that the contract does not name");
    // Arrays this machine leaves empty (no GPU, no drivers) cannot show their element keys.
    const mayBeEmpty = /^\/(hardware\/gpus|software\/(drivers|runtime))\/\[\]/;
    const absent = leaves(CONTRACT).filter((p) => !written.has(p) && !mayBeEmpty.test(p)).sort();
    assert.deepEqual(absent, [], "contract keys the run did not write");
    assert.ok(Object.keys(run.result.extensions ?? {}).includes("reasoning_cadence"));
  } finally {
    await cleanup(run);
  }
});
