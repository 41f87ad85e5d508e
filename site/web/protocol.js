// @ts-check
/**
 * The standard protocol as the site reads it, transcribed from the specification's text (stages, request ids,
 * seeds, caps, the twelve sanity cases and their required results, the profile's settings), and the registry of
 * protocol ids the site knows. Nothing here is imported from the runner or its fixture builder: where the two
 * disagree, the site's check fails and a person looks at which one misread the spec.
 */

import { isObject } from "./evidence.js";

/** @typedef {"warmup" | "performance" | "sanity" | "concurrency"} Phase */
/** @typedef {"instruction" | "retrieval" | "tool_call"} Category */

/**
 * One scheduled request, in the result contract's words.
 * @typedef {{ id: string, phase: Phase, case_id: string, repetition: number, seed: number,
 *   max_output_tokens: number, concurrency: number, round: number | null }} ScheduledRequest
 */

/**
 * A sanity case: `text` answers are compared after stripping surrounding ASCII whitespace; `json` answers are one
 * strict JSON value equal in value and type to `expected`; `tool` cases need exactly one structured call of
 * `tool` whose arguments are that JSON object.
 * @typedef {{ caseId: string, category: Category, kind: "text" | "json" | "tool", expected: string,
 *   tool?: string }} SanityCase
 */

/** The twelve checks of "Twelve sanity checks", in the order the protocol runs them. */
export const SANITY_CASES = /** @type {readonly SanityCase[]} */ ([
  { caseId: "I1", category: "instruction", kind: "json", expected: '{"ok":true,"count":3}' },
  { caseId: "I2", category: "instruction", kind: "json", expected: "[-4,1,2,9]" },
  { caseId: "I3", category: "instruction", kind: "json", expected: '{"project":"Orion","build":17}' },
  { caseId: "I4", category: "instruction", kind: "text", expected: "READY" },
  { caseId: "R1", category: "retrieval", kind: "text", expected: "ORBIT-731" },
  { caseId: "R2", category: "retrieval", kind: "text", expected: "CEDAR-284" },
  { caseId: "R3", category: "retrieval", kind: "text", expected: "DELTA-906" },
  { caseId: "R4", category: "retrieval", kind: "json", expected: '{"north":"N-124","south":"S-875"}' },
  { caseId: "T1", category: "tool_call", kind: "tool", tool: "lookup_record", expected: '{"id":"A-17"}' },
  {
    caseId: "T2",
    category: "tool_call",
    kind: "tool",
    tool: "get_weather",
    expected: '{"city":"Zagreb","unit":"celsius"}',
  },
  {
    caseId: "T3",
    category: "tool_call",
    kind: "tool",
    tool: "convert_units",
    expected: '{"value":3,"from_unit":"km","to_unit":"m"}',
  },
  {
    caseId: "T4",
    category: "tool_call",
    kind: "tool",
    tool: "get_build_status",
    expected: '{"project":"Orion","build":17}',
  },
]);

export const CATEGORIES = /** @type {readonly Category[]} */ (["instruction", "retrieval", "tool_call"]);
export const PHASES = /** @type {readonly Phase[]} */ (["warmup", "performance", "sanity", "concurrency"]);
export const PERFORMANCE_CASES = /** @type {readonly string[]} */ (["short", "prompt-4k", "prompt-16k"]);
export const BURST_CASE = "short-burst";
export const SUMMARY_METRICS =
  /** @type {const} */ (["prompt_tps", "decode_tps", "ttft_s", "first_answer_s", "total_s"]);

/** @typedef {typeof SUMMARY_METRICS[number]} SummaryMetric */

/**
 * The workload of the qwen3.8 thinking profile: what the site needs to check a result against the protocol.
 * @typedef {{
 *   name: string,
 *   profile: string,
 *   schedule: (optionalConcurrency: boolean) => ScheduledRequest[],
 *   promptTargets: Readonly<Record<string, number>>,
 *   promptTolerance: number,
 *   reuseAllowanceTokens: number,
 *   sampling: Readonly<Record<string, unknown>>,
 *   chatTemplateKwargs: Readonly<Record<string, unknown>>,
 * }} Workload
 */

/** @param {boolean} optionalConcurrency @returns {ScheduledRequest[]} */
function qwen38Schedule(optionalConcurrency) {
  /** @type {ScheduledRequest[]} */
  const requests = [
    {
      id: "warmup",
      phase: "warmup",
      case_id: "short",
      repetition: 1,
      seed: 1,
      max_output_tokens: 128,
      concurrency: 1,
      round: null,
    },
  ];
  // Performance: all three cases in each of three repetitions; repetition r uses seed r.
  for (let r = 1; r <= 3; r++) {
    for (const caseId of PERFORMANCE_CASES) {
      requests.push({
        id: `performance-${caseId}-r${r}`,
        phase: "performance",
        case_id: caseId,
        repetition: r,
        seed: r,
        max_output_tokens: 512,
        concurrency: 1,
        round: null,
      });
    }
  }
  for (const sanity of SANITY_CASES) {
    requests.push({
      id: `sanity-${sanity.caseId}`,
      phase: "sanity",
      case_id: sanity.caseId,
      repetition: 1,
      seed: 1,
      max_output_tokens: 2048,
      concurrency: 1,
      round: null,
    });
  }
  // Optional: three rounds of four clients; round r, client j uses seed 4(r-1)+j.
  if (optionalConcurrency) {
    for (let r = 1; r <= 3; r++) {
      for (let j = 1; j <= 4; j++) {
        requests.push({
          id: `concurrency-r${r}-c${j}`,
          phase: "concurrency",
          case_id: BURST_CASE,
          repetition: r,
          seed: 4 * (r - 1) + j,
          max_output_tokens: 512,
          concurrency: 4,
          round: r,
        });
      }
    }
  }
  return requests;
}

/** @type {Workload} */
const QWEN38_THINKING_V1 = Object.freeze({
  name: "qwen38-thinking-v1",
  profile: "qwen3.8-flash-next-thinking",
  schedule: qwen38Schedule,
  // "The measured input_tokens of the 4K and 16K cases must stay within 2% of 4,096 and 16,384."
  promptTargets: Object.freeze({ "prompt-4k": 4096, "prompt-16k": 16384 }),
  promptTolerance: 0.02,
  // "cached_tokens may be at most its max_shared_prefix_tokens plus 8 tokens for merges at the boundary."
  reuseAllowanceTokens: 8,
  sampling: Object.freeze({
    temperature: 1,
    top_p: 0.95,
    top_k: 20,
    min_p: 0,
    presence_penalty: 0,
    repetition_penalty: 1,
    reasoning_effort: "xhigh",
  }),
  chatTemplateKwargs: Object.freeze({ enable_thinking: true, preserve_thinking: true }),
});

/**
 * A protocol id the site knows. `stage` "draft": pilot data, kept outside the standard list; "activated": may
 * be listed as standard. `corpusSha256` pins the frozen request bundle; `maxSharedPrefixTokens` are that
 * bundle's frozen per-request facts, which the reuse rule needs.
 * @typedef {{ id: string, stage: "draft" | "activated", workload: Workload, corpusSha256: string,
 *   maxSharedPrefixTokens: Readonly<Record<string, number>> }} KnownProtocol
 */

/** max_shared_prefix_tokens of each request of the standard-v1 bundle (corpus 06b1f367...). */
const STANDARD_V1_SHARED_PREFIX = Object.freeze({
  "warmup": 5,
  "performance-short-r1": 8,
  "performance-short-r2": 8,
  "performance-short-r3": 8,
  "performance-prompt-4k-r1": 12,
  "performance-prompt-4k-r2": 12,
  "performance-prompt-4k-r3": 12,
  "performance-prompt-16k-r1": 13,
  "performance-prompt-16k-r2": 13,
  "performance-prompt-16k-r3": 13,
  "sanity-I1": 7,
  "sanity-I2": 7,
  "sanity-I3": 7,
  "sanity-I4": 7,
  "sanity-R1": 7,
  "sanity-R2": 7,
  "sanity-R3": 7,
  "sanity-R4": 7,
  "sanity-T1": 51,
  "sanity-T2": 52,
  "sanity-T3": 51,
  "sanity-T4": 52,
  "concurrency-r1-c1": 9,
  "concurrency-r1-c2": 9,
  "concurrency-r1-c3": 9,
  "concurrency-r1-c4": 9,
  "concurrency-r2-c1": 9,
  "concurrency-r2-c2": 9,
  "concurrency-r2-c3": 9,
  "concurrency-r2-c4": 9,
  "concurrency-r3-c1": 9,
  "concurrency-r3-c2": 9,
  "concurrency-r3-c3": 9,
  "concurrency-r3-c4": 9,
});

/** The protocol ids the site knows today: only the draft. No activated id exists until the pilot freezes one. */
export const KNOWN_PROTOCOLS = /** @type {readonly KnownProtocol[]} */ (Object.freeze([
  Object.freeze({
    id: "strata-qwen38-thinking-v1-draft.1",
    stage: /** @type {const} */ ("draft"),
    workload: QWEN38_THINKING_V1,
    corpusSha256: "06b1f367280d463c030adfe1b45a037a38d1e099a3f1c1600c392b024fa5ac83",
    maxSharedPrefixTokens: STANDARD_V1_SHARED_PREFIX,
  }),
]));

export const PROTOCOLS_FORMAT = "strata-site-protocols";

/**
 * Reads a protocol declaration file and returns the known protocols plus the declared ones. A declaration names
 * a new id, its stage, and the known id whose workload, corpus and frozen facts it shares (`definition_of`):
 * the case of a draft whose workload the pilot kept unchanged when it froze a new id. It cannot define answers.
 * `{"format":"strata-site-protocols","schema_version":1,"protocols":[{"id":"...","stage":"activated",
 * "definition_of":"strata-qwen38-thinking-v1-draft.1"}]}`
 * @param {unknown} value the parsed file
 * @returns {{ ok: true, protocols: KnownProtocol[] } | { ok: false, problems: string[] }}
 */
export function protocolsWithDeclarations(value) {
  /** @type {string[]} */
  const problems = [];
  /** @type {KnownProtocol[]} */
  const protocols = [...KNOWN_PROTOCOLS];
  if (!isObject(value)) return { ok: false, problems: ["(root): expected a JSON object"] };
  const file = value;
  if (file.format !== PROTOCOLS_FORMAT) problems.push(`/format: expected "${PROTOCOLS_FORMAT}"`);
  if (file.schema_version !== 1) problems.push("/schema_version: expected 1 (the only version this site reads)");
  for (const key of Object.keys(file)) {
    if (!["format", "schema_version", "protocols"].includes(key)) problems.push(`/${key}: unknown field`);
  }
  if (!Array.isArray(file.protocols)) {
    problems.push("/protocols: expected an array");
    return { ok: false, problems };
  }
  file.protocols.forEach((raw, index) => {
    const at = `/protocols/${index}`;
    if (!isObject(raw)) return void problems.push(`${at}: expected an object`);
    const declared = raw;
    for (const key of Object.keys(declared)) {
      if (!["id", "stage", "definition_of"].includes(key)) problems.push(`${at}/${key}: unknown field`);
    }
    const id = declared.id;
    const base = protocols.find((p) => p.id === declared.definition_of);
    if (typeof id !== "string" || id === "") return void problems.push(`${at}/id: expected a protocol id`);
    if (protocols.some((p) => p.id === id)) return void problems.push(`${at}/id: "${id}" is already known`);
    if (declared.stage !== "draft" && declared.stage !== "activated") {
      return void problems.push(`${at}/stage: expected "draft" or "activated"`);
    }
    if (base === undefined) return void problems.push(`${at}/definition_of: not a known protocol id`);
    protocols.push(Object.freeze({ ...base, id, stage: declared.stage }));
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, protocols };
}
