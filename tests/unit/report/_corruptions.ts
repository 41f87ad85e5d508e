/**
 * Single-field corruptions of the realistic result, each with the JSON Pointer the validator must name, and
 * whether the published JSON Schema alone can also reject it (null: a fault of the JSON text, not of a value).
 *
 * Request indices of the 22-record result: 0 warmup, 1 performance-short-r1 (completed), 2 prompt-4k-r1
 * (capped), 3 prompt-16k-r1 (capped), 4-9 repetitions 2 and 3, 10-21 sanity I1..T4 (16 is R3, answered wrongly).
 */
import type { Result } from "../../../contract/mod.ts";

export type Mutable = Result & Record<string, unknown>;

export interface Corruption {
  name: string;
  pointer: string;
  /** Whether result.schema.json rejects it too; null for faults of the text itself. */
  schema: boolean | null;
  /** Also require this text in the problem's message. */
  says?: string;
  /** Use the 34-record result with the optional stage. */
  optional?: boolean;
  value?: (result: Mutable) => void;
  text?: (text: string) => string;
  /** Replaces what the artifact reader returns for a path. */
  read?: (path: string, bytes: Uint8Array | null) => Uint8Array | null;
}

const request = (r: Mutable, i: number) => r.requests[i] as unknown as Record<string, unknown> & Result["requests"][0];

export const CORRUPTIONS: Corruption[] = [
  {
    name: "a duration given as a string",
    pointer: "/run/required_duration_s",
    schema: true,
    value: (r) => ((r.run as unknown as Record<string, unknown>).required_duration_s = "202.4"),
  },
  {
    name: 'a NaN-like timing ("NaN" as a string)',
    pointer: "/requests/1/timings/total_s",
    schema: true,
    value: (r) => ((request(r, 1).timings as unknown as Record<string, unknown>).total_s = "NaN"),
  },
  {
    name: "a negative request count",
    pointer: "/request_counts/sanity/failed",
    schema: true,
    value: (r) => (r.request_counts.sanity.failed = -1),
  },
  {
    name: "a fractional token count",
    pointer: "/requests/1/tokens/output_tokens",
    schema: true,
    value: (r) => (request(r, 1).tokens.output_tokens = 200.5),
  },
  {
    name: "an uppercase artifact hash",
    pointer: "/artifacts/0/sha256",
    schema: true,
    value: (r) => (r.artifacts[0]!.sha256 = r.artifacts[0]!.sha256.toUpperCase()),
  },
  {
    name: "a start time with a +01:00 offset instead of Z",
    pointer: "/run/started_at",
    schema: true,
    value: (r) => (r.run.started_at = "2026-11-29T15:03:07.123+01:00"),
  },
  {
    name: "a start time on a day that does not exist",
    pointer: "/run/started_at",
    schema: false,
    value: (r) => (r.run.started_at = "2026-02-30T14:03:07.123Z"),
  },
  {
    name: "an artifact path that climbs out with ..",
    pointer: "/artifacts/1/path",
    schema: true,
    value: (r) => (r.artifacts[1]!.path = "logs/../../engine.log"),
  },
  {
    name: "an absolute model file path",
    pointer: "/model/files/0/path",
    schema: true,
    value: (r) => (r.model.files![0]!.path = "/home/alice/models/q.gguf"),
  },
  {
    name: "a Windows drive path with backslashes",
    pointer: "/model/files/1/path",
    schema: true,
    value: (r) => (r.model.files![1]!.path = "C:\\models\\q.gguf"),
  },
  {
    name: "a null without a reason in missing",
    pointer: "/hardware/storage",
    schema: false,
    says: "null without a reason",
    value: (r) => delete r.missing["/hardware/storage"],
  },
  {
    name: "a missing entry that points at a value, not a null",
    pointer: "/missing/~1hardware~1cpu",
    schema: false,
    value: (r) => (r.missing["/hardware/cpu"] = "not read"),
  },
  {
    name: "a missing entry whose pointer resolves to nothing",
    pointer: "/missing/~1hardware~1gpu",
    schema: false,
    says: "points at nothing",
    value: (r) => (r.missing["/hardware/gpu"] = "no GPU probe"),
  },
  {
    name: "a missing key that is not a JSON Pointer",
    pointer: "/missing/hardware~1storage",
    schema: false,
    says: "not a JSON Pointer",
    value: (r) => (r.missing["hardware/storage"] = "lsblk missing"),
  },
  {
    name: "a null inside an engine option object without a reason",
    pointer: "/configuration/kv_cache/cache_type_v",
    schema: false,
    value: (r) => (r.configuration.kv_cache!["cache_type_v"] = null),
  },
  {
    name: "an empty reason in missing",
    pointer: "/missing/~1hardware~1storage",
    schema: true,
    value: (r) => (r.missing["/hardware/storage"] = "  "),
  },
  {
    name: "an unknown top-level field",
    pointer: "/notes",
    schema: true,
    value: (r) => (r["notes"] = "fast machine"),
  },
  {
    name: "an unknown field inside a request record",
    pointer: "/requests/3/tokens_per_second",
    schema: true,
    value: (r) => (request(r, 3)["tokens_per_second"] = 41.2),
  },
  {
    name: "an unknown schema_version",
    pointer: "/schema_version",
    schema: true,
    value: (r) => ((r as Record<string, unknown>)["schema_version"] = 2),
  },
  {
    name: "an unknown format",
    pointer: "/format",
    schema: true,
    value: (r) => ((r as Record<string, unknown>)["format"] = "strata-benchmark"),
  },
  {
    name: "an unknown protocol id",
    pointer: "/protocol/id",
    schema: true,
    value: (r) => ((r.protocol as Record<string, unknown>)["id"] = "strata-qwen38-thinking-v2"),
  },
  {
    name: "attempted that is not completed + truncated + failed",
    pointer: "/request_counts/performance/attempted",
    schema: false,
    says: "completed + truncated + failed",
    value: (r) => (r.request_counts.performance.attempted = 8),
  },
  {
    name: "counts that keep their identities but disagree with the records",
    pointer: "/request_counts/performance/completed",
    schema: false,
    value: (r) => {
      r.request_counts.performance.completed += 1;
      r.request_counts.performance.truncated -= 1;
    },
  },
  {
    name: "21 records (sanity-T4 dropped)",
    pointer: "/requests",
    schema: false,
    says: "expected 22 request records",
    value: (r) => r.requests.pop(),
  },
  {
    name: "two records in the wrong order",
    pointer: "/requests/1/id",
    schema: false,
    says: "out of order",
    value: (r) => r.requests.splice(1, 2, r.requests[2]!, r.requests[1]!),
  },
  {
    name: "a sanity id replaced by a duplicate of another",
    pointer: "/requests",
    schema: false,
    says: 'no record for scheduled request "sanity-I2"',
    value: (r) => (request(r, 11).id = "sanity-I1"),
  },
  {
    name: "a seed that is not the one the request id schedules",
    pointer: "/requests/4/seed",
    schema: false,
    value: (r) => (request(r, 4).seed = 1),
  },
  {
    name: 'a completed request whose finish_reason is "length"',
    pointer: "/requests/1/finish_reason",
    schema: false,
    value: (r) => (request(r, 1).finish_reason = "length"),
  },
  {
    name: "a failed request without an error object",
    pointer: "/requests/2/error",
    schema: false,
    value: (r) => {
      request(r, 2).status = "failed";
      r.request_counts.performance.truncated -= 1;
      r.request_counts.performance.failed += 1;
    },
  },
  {
    name: "a passing verdict on a sanity request that reached its cap",
    pointer: "/requests/13/evaluation/passed",
    schema: false,
    value: (r) => {
      Object.assign(request(r, 13), { status: "truncated", finish_reason: "length" });
      r.request_counts.sanity.completed -= 1;
      r.request_counts.sanity.truncated += 1;
    },
  },
  {
    name: "a sanity verdict in the wrong category",
    pointer: "/requests/14/evaluation/category",
    schema: false,
    value: (r) => (request(r, 14).evaluation!.category = "instruction"),
  },
  {
    name: "a verdict on a performance request",
    pointer: "/requests/1/evaluation",
    schema: false,
    says: "only sanity requests are scored",
    value: (r) => {
      request(r, 1).evaluation = { category: "instruction", passed: true, reason: "looked fine" };
      delete r.missing["/requests/1/evaluation"];
    },
  },
  {
    name: "a summary median altered by 0.1",
    pointer: "/summaries/1/median",
    schema: false,
    says: "differs from what the request records give",
    value: (r) => (r.summaries[1]!.median = (r.summaries[1]!.median ?? 0) + 0.1),
  },
  {
    name: "a quality total that is not the sum of the verdicts",
    pointer: "/quality/passed",
    schema: false,
    value: (r) => (r.quality.passed = 12),
  },
  {
    name: "a round aggregate that does not follow from its records",
    pointer: "/concurrency_rounds/1/aggregate_tps",
    schema: false,
    optional: true,
    value: (r) => (r.concurrency_rounds[1]!.aggregate_tps = 99),
  },
  {
    name: "a complete run relabelled partial",
    pointer: "/run/status",
    schema: false,
    value: (r) => (r.run.status = "partial"),
  },
  {
    name: "greedy sampling on a run that claims to conform",
    pointer: "/configuration/sampling/temperature",
    schema: false,
    says: "nonconforming",
    value: (r) => (r.configuration.sampling.temperature = 0),
  },
  {
    name: "an optional duration without the optional stage",
    pointer: "/run/optional_duration_s",
    schema: false,
    value: (r) => {
      r.run.optional_duration_s = 12.5;
      delete r.missing["/run/optional_duration_s"];
    },
  },
  {
    name: "a template that is not attached as an artifact",
    pointer: "/configuration/template/path",
    schema: false,
    value: (r) => (r.configuration.template!.path = "templates/other.jinja"),
  },
  {
    name: "artifact bytes changed after hashing",
    pointer: "/artifacts/2/sha256",
    schema: false,
    says: "does not match the bytes",
    read: (path, bytes) => (path === "outputs.jsonl" && bytes ? new Uint8Array([...bytes, 0x0a]) : bytes),
  },
  {
    name: "an artifact file that is missing",
    pointer: "/artifacts/1/path",
    schema: false,
    says: "not in the result folder",
    read: (path, bytes) => (path === "engine.log" ? null : bytes),
  },
  {
    name: "a duplicate key in the JSON text",
    pointer: "",
    schema: null,
    says: "not strict JSON",
    text: (t) => t.replace('"schema_version": 1,', '"schema_version": 1,\n  "schema_version": 1,'),
  },
  {
    name: "a __proto__ key at the top level",
    pointer: "/__proto__",
    schema: true,
    says: "unknown field",
    text: (t) => t.replace('"schema_version": 1,', '"schema_version": 1,\n  "__proto__": {"polluted": true},'),
  },
  {
    name: "nesting deeper than the parser allows (inside extensions)",
    pointer: "",
    schema: null,
    says: "not strict JSON",
    text: (t) => t.replace('"extensions": {', `"extensions": {"deep": ${"[".repeat(5000)}${"]".repeat(5000)},`),
  },
  {
    name: "a number too large for a double (1e400)",
    pointer: "",
    schema: null,
    says: "not strict JSON",
    text: (t) => t.replace('"ram_bytes": 34359738368', '"ram_bytes": 1e400'),
  },
];
