/**
 * The comparison of several validated results, as community reports write it by hand: one row per
 * (configuration, case) with actual prompt, reused and generated tokens, runs n, prompt and decode tok/s median
 * [min-max], TTFT and first-answer medians, capped count, sanity x/12 and status. Runs of one configuration are
 * read together (their summaries decide which requests count, as in their own results.json); nothing else is:
 * - different protocols (corpus included) or models (id, quantization, model files) are separate groups, and the
 *   comparison says so: their numbers are not side by side;
 * - inside a group, each configuration (machine, engine and build, track, engine settings, capacity, dialect,
 *   simulation) has its own rows, labelled A, B, ... with what differs between them;
 * - complete, partial and nonconforming results are separate sections of a group; concurrency levels are separate
 *   rows (the optional stage is its own case);
 * - runs of one configuration that disagree on a metric are not pooled into it (delta.ts);
 * - each section answers "A or B?" case by case: every other configuration against its first, with an interval.
 * The order is fixed by the results, not by the order the folders were named in: configurations by their first
 * run's start, groups by their label. Statistics come from score/; this module only groups.
 */
import { CONCURRENCY_CASE, PERFORMANCE_CASES, type Result, type RunStatus } from "../../contract/mod.ts";
import { includedMetricValues, leftOutOfReadout, readCase, type ValueRange } from "../../score/mod.ts";
import { gpuNames, isSimulated } from "../_report_head.ts";
import {
  type CaseDelta,
  caseDelta,
  DELTA_METRICS,
  type DeltaMetric,
  type MetricSample,
  sampleMetric,
} from "./delta.ts";

/** Metrics a comparison row shows. */
export const COMPARED_METRICS = ["prompt_tps", "decode_tps", "ttft_s", "first_answer_s"] as const;
export type ComparedMetric = typeof COMPARED_METRICS[number];

/** One folder in the comparison. */
export interface ComparedRun {
  folder: string;
  runId: string;
  startedAt: string;
  status: RunStatus;
  sanity: { passed: number; total: number };
  simulated: boolean;
}

/** A fact's value as text, or null where the result does not know it (renderers say "not measured"). */
export type FactValue = string | null;

/** One configuration: its label, its runs, and the facts that identify it. */
export interface ComparedConfiguration {
  label: string;
  runs: ComparedRun[];
  /** Whether its runs were against the scripted engine (a simulation: it measures no hardware). */
  simulated: boolean;
  /** Every identifying fact, by name. */
  facts: Record<string, FactValue>;
  /** The facts whose values differ between the configurations of its group (empty with one configuration). */
  differs: [string, FactValue][];
}

/** One row: a configuration's runs of one status, one case. */
export interface ComparisonRow {
  configuration: string;
  caseId: string;
  concurrency: number;
  /** Folders (runs) that have this case. */
  runs: number;
  inputTokens: ValueRange;
  cachedTokens: ValueRange;
  outputTokens: ValueRange;
  /**
   * null where the readout leaves the metric out (score/'s leftOutOfReadout: the short prompt's prompt rate); the
   * median is null where the runs disagree (see `samples`).
   */
  metrics: Record<ComparedMetric, ValueRange | null>;
  /**
   * The optional stage's aggregate output tokens/s per round (the rounds of every run of the row, median [min-max]
   * n); null for a case of the required suite. Per-client rates are never averaged into it.
   */
  roundAggregateTps: ValueRange | null;
  /** Each metric's values per run, and whether the runs disagree; absent where the metric is left out. */
  samples: Partial<Record<DeltaMetric, MetricSample>>;
  /** The configuration's runs were a simulation. */
  simulated: boolean;
  capped: number;
  records: number;
  /** Each run's sanity score, in run order ("11/12"). */
  sanity: string[];
  status: RunStatus;
}

export interface ComparisonSection {
  status: RunStatus;
  rows: ComparisonRow[];
  /** Every other configuration of the section against its first, per case and metric (empty with one). */
  deltas: CaseDelta[];
}

/** Results of one protocol and one model. */
export interface ComparisonGroup {
  label: string;
  /** The facts shared by every configuration of the group. */
  shared: [string, FactValue][];
  configurations: ComparedConfiguration[];
  sections: ComparisonSection[];
}

export interface Comparison {
  groups: ComparisonGroup[];
  /** Sentences a reader must see first (folders that cannot be compared with each other). */
  notes: string[];
}

/** A validated result and the name its folder is shown by. */
export interface ComparedInput {
  folder: string;
  result: Result;
}

const STATUS_ORDER: readonly RunStatus[] = ["complete", "partial", "nonconforming"];

function json(value: unknown): FactValue {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

function text(value: string | number | null | undefined): FactValue {
  return value === null || value === undefined ? null : String(value);
}

/** Protocol and model: what must be equal for numbers to stand side by side. */
function groupFacts(result: Result): [string, FactValue][] {
  const files = result.model.files === null
    ? null
    : result.model.files.map((f) => f.sha256 ?? f.path).join(", ") || "none";
  return [
    ["protocol", `${result.protocol.id} (corpus ${result.protocol.corpus_sha256.slice(0, 12)})`],
    ["model", text(result.model.id)],
    ["quantization", text(result.model.quantization)],
    ["model files", files],
  ];
}

/** What identifies a configuration inside a group. */
function configurationFacts(result: Result): Record<string, FactValue> {
  const c = result.configuration;
  const s = result.software;
  const gpus = gpuNames(result);
  const ext = result.extensions ?? {};
  return {
    GPU: gpus === null ? null : gpus === "" ? "none" : gpus,
    CPU: text(result.hardware.cpu),
    engine: text(s.engine_version),
    "engine commit": text(s.strata_commit),
    "build options": json(s.build_options),
    track: c.track,
    "context tokens": text(c.context_tokens),
    "server capacity": text(c.server_capacity),
    "KV cache": json(c.kv_cache),
    "expert cache": json(c.expert_cache),
    offloading: json(c.offloading),
    prefill: json(c.prefill),
    MTP: json(c.mtp),
    calibration: json(c.calibration),
    "experimental options": json(c.experimental_options),
    "other engine options": json(ext["other_engine_options"] ?? null),
    template: text(c.template?.sha256 ?? null),
    dialect: typeof ext["dialect"] === "string" ? ext["dialect"] : null,
    simulated: isSimulated(result) ? "yes" : "no",
  };
}

function letters(index: number): string {
  let out = "";
  let n = index;
  do {
    out = String.fromCharCode(65 + (n % 26)) + out;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return out;
}

function runOf(input: ComparedInput): ComparedRun {
  const r = input.result;
  return {
    folder: input.folder,
    runId: r.run.id,
    startedAt: r.run.started_at,
    status: r.run.status,
    sanity: { passed: r.quality.passed, total: r.quality.total },
    simulated: isSimulated(r),
  };
}

const byStart = (a: ComparedInput, b: ComparedInput) =>
  a.result.run.started_at.localeCompare(b.result.run.started_at) || a.result.run.id.localeCompare(b.result.run.id);

function rowsOf(label: string, status: RunStatus, inputs: readonly ComparedInput[]): ComparisonRow[] {
  const cases: ["performance" | "concurrency", string][] = PERFORMANCE_CASES.map((c) => ["performance", c]);
  cases.push(["concurrency", CONCURRENCY_CASE]);
  const rows: ComparisonRow[] = [];
  for (const [phase, caseId] of cases) {
    const having = inputs.filter((i) => i.result.requests.some((r) => r.phase === phase && r.case_id === caseId));
    if (having.length === 0) continue;
    const readout = readCase(having.flatMap((i) => i.result.requests), phase, caseId);
    const samples: Partial<Record<DeltaMetric, MetricSample>> = {};
    for (const m of COMPARED_METRICS) {
      if (leftOutOfReadout(m, caseId)) continue;
      samples[m] = sampleMetric(having.map((i) =>
        includedMetricValues({
          requests: i.result.requests,
          includedRequestIds: i.result.summaries.find((s) =>
            s.phase === phase && s.case_id === caseId && s.metric === m
          )?.included_request_ids ?? [],
        }, m)
      ));
    }
    if (phase === "concurrency") {
      samples.round_aggregate_tps = sampleMetric(
        having.map((i) => i.result.concurrency_rounds.flatMap((r) => r.aggregate_tps ?? [])),
      );
    }
    const metric = (m: DeltaMetric): ValueRange | null => samples[m]?.range ?? null;
    rows.push({
      configuration: label,
      caseId,
      concurrency: readout.concurrency,
      runs: having.length,
      inputTokens: readout.inputTokens,
      cachedTokens: readout.cachedTokens,
      outputTokens: readout.outputTokens,
      metrics: {
        prompt_tps: metric("prompt_tps"),
        decode_tps: metric("decode_tps"),
        ttft_s: metric("ttft_s"),
        first_answer_s: metric("first_answer_s"),
      },
      roundAggregateTps: metric("round_aggregate_tps"),
      samples,
      simulated: having.some((i) => isSimulated(i.result)),
      capped: readout.capped,
      records: readout.records,
      sanity: having.map((i) => `${i.result.quality.passed}/${i.result.quality.total}`),
      status,
    });
  }
  return rows;
}

/** Every other configuration of a section's rows against its first configuration, per case and metric. */
function deltasOf(rows: readonly ComparisonRow[]): CaseDelta[] {
  const baseline = rows[0]?.configuration;
  const out: CaseDelta[] = [];
  for (const row of rows) {
    if (row.configuration === baseline) continue;
    const base = rows.find((r) => r.configuration === baseline && r.caseId === row.caseId);
    if (base === undefined) continue;
    for (const metric of DELTA_METRICS) {
      const a = base.samples[metric];
      const b = row.samples[metric];
      if (a === undefined || b === undefined) continue;
      out.push(caseDelta({ caseId: row.caseId, concurrency: row.concurrency, metric }, {
        label: base.configuration,
        sample: a,
      }, { label: row.configuration, sample: b }));
    }
  }
  return out;
}

/** One group of a comparison: its shared facts, its configurations (letters from `labelOf`), its status sections. */
function groupOf(
  members: readonly ComparedInput[],
  configKey: (i: ComparedInput) => string,
  labelOf: ReadonlyMap<string, string>,
): ComparisonGroup {
  const facts = groupFacts(members[0]!.result);
  const configs = new Map<string, { label: string; facts: Record<string, FactValue>; inputs: ComparedInput[] }>();
  for (const input of members) {
    const key = configKey(input);
    const entry = configs.get(key) ??
      { label: labelOf.get(key)!, facts: configurationFacts(input.result), inputs: [] };
    entry.inputs.push(input);
    configs.set(key, entry);
  }
  const entries = [...configs.values()];
  const names = Object.keys(entries[0]!.facts);
  const differing = names.filter((name) => new Set(entries.map((e) => e.facts[name])).size > 1);
  const shared: [string, FactValue][] = [
    ...facts,
    ...names.filter((n) => !differing.includes(n)).map((n): [string, FactValue] => [n, entries[0]!.facts[n]!]),
  ];
  const configurations = entries.map((e): ComparedConfiguration => ({
    label: e.label,
    runs: e.inputs.map(runOf),
    simulated: e.inputs.some((i) => isSimulated(i.result)),
    facts: e.facts,
    differs: differing.map((n): [string, FactValue] => [n, e.facts[n] ?? null]),
  }));
  const sections: ComparisonSection[] = [];
  for (const status of STATUS_ORDER) {
    const rows = entries.flatMap((e) => {
      const withStatus = e.inputs.filter((i) => i.result.run.status === status);
      return withStatus.length === 0 ? [] : rowsOf(e.label, status, withStatus);
    });
    if (rows.length > 0) sections.push({ status, rows, deltas: deltasOf(rows) });
  }
  const label = facts.map(([, value]) => value ?? "not measured").slice(0, 3).join(" / ");
  return { label, shared, configurations, sections };
}

/** The sentence a reader must see first when the folders fall into several groups: what the groups differ in. */
function groupNotes(groups: readonly ComparisonGroup[]): string[] {
  if (groups.length <= 1) return [];
  const what = new Set<string>();
  const all = groups.map((g) => Object.fromEntries(g.shared.slice(0, 4)));
  for (const name of ["protocol", "model", "quantization", "model files"]) {
    if (new Set(all.map((g) => g[name])).size > 1) what.add(name);
  }
  return [
    `These folders differ in ${
      [...what].join(", ")
    }: they are shown as ${groups.length} separate groups, and numbers ` +
    "of different groups are not comparable.",
  ];
}

/**
 * Groups validated results for comparison.
 * @throws {RangeError} when two inputs are the same run (same run id): pooling a run twice would count it twice;
 * the caller refuses the duplicate first.
 */
export function compareResults(inputs: readonly ComparedInput[]): Comparison {
  const seen = new Map<string, string>();
  for (const input of inputs) {
    const first = seen.get(input.result.run.id);
    if (first !== undefined) {
      throw new RangeError(`Cannot compare: "${input.folder}" is the same run as "${first}" (${input.result.run.id})`);
    }
    seen.set(input.result.run.id, input.folder);
  }
  const sorted = [...inputs].sort(byStart);
  // Configuration letters across the whole comparison, by first run.
  const configKey = (i: ComparedInput) =>
    JSON.stringify([groupFacts(i.result), Object.entries(configurationFacts(i.result))]);
  const labelOf = new Map<string, string>();
  for (const input of sorted) {
    const key = configKey(input);
    if (!labelOf.has(key)) labelOf.set(key, letters(labelOf.size));
  }
  const groups = new Map<string, ComparedInput[]>();
  for (const input of sorted) {
    const key = JSON.stringify(groupFacts(input.result));
    groups.set(key, [...(groups.get(key) ?? []), input]);
  }
  const out = [...groups.values()].map((members) => groupOf(members, configKey, labelOf));
  out.sort((a, b) => a.label.localeCompare(b.label));
  return { groups: out, notes: groupNotes(out) };
}
