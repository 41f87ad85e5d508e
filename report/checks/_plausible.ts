/**
 * Plausibility: values that every other rule re-derives and finds consistent can still be impossible (a request
 * capped at 512 tokens that produced 9e15, a run started in 2099, an answer that arrived before its request was
 * sent, a GPU drawing 1e29 W). Each rule here is a row of the table in docs/results.md, "Plausibility"; the site
 * applies the same table in its own code (site/web/check_plausible.js). An implausible value is invalid, at its
 * pointer.
 */
import { isJsonObject, STAMP_LISTS } from "../../contract/mod.ts";
import { childPointer, type ProblemSink } from "../_pointer.ts";
import type { EvidenceLine } from "./_types.ts";

/** No strata-bench result predates this (the protocol's first draft). */
export const EARLIEST_RUN = Date.parse("2025-01-01T00:00:00Z");
/** A start time later than the check's own clock by more than this is in the future. */
const FUTURE_SLACK_MS = 24 * 3600 * 1000;
/** The wall clock may step (NTP) during a run: a dispatch stamp may stray this far from start + offset. */
const EPOCH_SLACK_MS = 3600 * 1000;
/** No request of the protocol runs longer than a day (the client's own deadline is far shorter). */
const MAX_SECONDS = 24 * 3600;
/** No model's context reaches this; a count above it is no count an engine gave. */
const MAX_TOKENS = 100_000_000;
/** One GPU draws at most about 1.5 kW today; this bound leaves room for what comes, and catches a unit error. */
export const MAX_WATTS_PER_GPU = 5000;

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => isJsonObject<Json>(v);
const num = (v: Json): v is number => typeof v === "number" && Number.isFinite(v);

/** The rules on results.json's own values (records, start time, power). */
export function checkPlausibleResult(value: Record<string, Json>, nowMs: number, problems: ProblemSink): void {
  const say = (pointer: string, message: string) => problems.push({ pointer, message: `implausible: ${message}` });
  const run = isObject(value["run"]) ? value["run"] : {};
  const started = typeof run["started_at"] === "string" ? Date.parse(run["started_at"]) : Number.NaN;
  if (Number.isFinite(started) && (started < EARLIEST_RUN || started > nowMs + FUTURE_SLACK_MS)) {
    say(
      "/run/started_at",
      `${run["started_at"]} is before 2025 or in the future (this check's clock reads ` +
        `${new Date(nowMs).toISOString()})`,
    );
  }
  const requests = Array.isArray(value["requests"]) ? value["requests"] : [];
  requests.forEach((record, i) => {
    if (isObject(record)) checkRecord(record, childPointer("/requests", i), say);
  });
  const extensions = isObject(value["extensions"]) ? value["extensions"] : {};
  if (isObject(extensions["gpu_power"])) checkPower(extensions["gpu_power"], say);
}

function checkRecord(
  record: Record<string, Json>,
  at: string,
  say: (pointer: string, message: string) => void,
): void {
  const tokens = isObject(record["tokens"]) ? record["tokens"] : {};
  const cap = record["max_output_tokens"];
  for (const key of ["input_tokens", "cached_tokens", "read_tokens", "output_tokens", "decode_tokens"]) {
    const n = tokens[key];
    if (!num(n)) continue;
    const capped = (key === "output_tokens" || key === "decode_tokens") && num(cap);
    if (capped && n > cap) {
      say(`${at}/tokens/${key}`, `${n} tokens, but the request capped its output at ${cap} (max_tokens)`);
    } else if (!capped && n > MAX_TOKENS) say(`${at}/tokens/${key}`, `${n} tokens is more than any engine counts`);
  }
  const input = tokens["input_tokens"];
  for (const key of ["cached_tokens", "read_tokens"]) {
    const n = tokens[key];
    if (num(n) && num(input) && n > input) say(`${at}/tokens/${key}`, `${n} is more than the ${input} prompt tokens`);
  }
  const timings = isObject(record["timings"]) ? record["timings"] : {};
  for (const key of ["prompt_s", "decode_s", "ttft_s", "first_answer_s", "total_s"]) {
    const s = timings[key];
    if (num(s) && (s < 0 || s > MAX_SECONDS)) say(`${at}/timings/${key}`, `${s} s is negative or longer than a day`);
  }
  const order: [string, string][] = [["ttft_s", "first_answer_s"], ["first_answer_s", "total_s"], [
    "ttft_s",
    "total_s",
  ]];
  for (const [early, late] of order) {
    const a = timings[early], b = timings[late];
    if (num(a) && num(b) && a > b) say(`${at}/timings/${late}`, `${late} ${b} s comes before ${early} ${a} s`);
  }
}

function checkPower(power: Record<string, Json>, say: (pointer: string, message: string) => void): void {
  const gpus = num(power["gpus"]) && power["gpus"] >= 1 ? power["gpus"] : 1;
  const limit = MAX_WATTS_PER_GPU * gpus;
  for (const list of ["requests", "cases"]) {
    const rows = Array.isArray(power[list]) ? power[list] : [];
    rows.forEach((row, i) => {
      if (!isObject(row)) return;
      const at = `/extensions/gpu_power/${list}/${i}`;
      const mean = row["mean_power_w"], peak = row["peak_power_w"], energy = row["energy_j"];
      for (const [key, w] of [["mean_power_w", mean], ["peak_power_w", peak]] as const) {
        if (num(w) && (w < 0 || w > limit)) {
          say(`${at}/${key}`, `${w} W is negative or more than ${limit} W (${MAX_WATTS_PER_GPU} W per GPU)`);
        }
      }
      if (num(mean) && num(peak) && mean > peak) {
        say(`${at}/mean_power_w`, `the mean ${mean} W exceeds the peak ${peak} W`);
      }
      if (num(energy) && energy < 0) say(`${at}/energy_j`, `${energy} J is negative`);
    });
  }
}

/**
 * The rules on the evidence lines' clocks: offsets from dispatch are non-negative, in the order a stream gives
 * them, and inside the stream; the wall-clock dispatch stamp is the start time plus the dispatch offset, within
 * an hour (the clock may step).
 */
export function checkPlausibleLines(
  lines: readonly EvidenceLine[],
  startedAt: string | null,
  at: string,
  problems: ProblemSink,
): void {
  const started = startedAt === null ? Number.NaN : Date.parse(startedAt);
  for (const line of lines) {
    if (line.facts.kind !== "outcome") continue;
    const say = (message: string) =>
      problems.push({
        pointer: at,
        message: `outputs.jsonl line ${line.lineNumber} (${line.id}): implausible: ${message}`,
      });
    const { outcome, dispatchOffsetS } = line.facts;
    const epoch = outcome.dispatched_at_epoch_ms;
    if (Number.isFinite(started) && Math.abs(epoch - (started + dispatchOffsetS * 1000)) > EPOCH_SLACK_MS) {
      say(`dispatched_at_epoch_ms ${epoch} is not within an hour of run.started_at plus dispatch_offset_s`);
    }
    const o = outcome.offsets;
    const named: [string, number | null][] = [
      // The response's first byte comes before its head is whole (a head may span reads).
      ["first_byte_s", o.first_byte_s],
      ["headers_s", o.headers_s],
      ["first_delta_s", o.first_delta_s],
      ["end_s", o.end_s],
    ];
    for (const [name, s] of [...named, ["first_answer_s", o.first_answer_s] as [string, number | null]]) {
      if (s !== null && (s < 0 || s > MAX_SECONDS)) say(`client_offsets_s.${name} ${s} is negative or past a day`);
    }
    const present = named.filter((n): n is [string, number] => n[1] !== null);
    for (let i = 1; i < present.length; i++) {
      const [a, b] = [present[i - 1]!, present[i]!];
      if (a[1] > b[1]) say(`client_offsets_s.${b[0]} ${b[1]} comes before ${a[0]} ${a[1]}`);
    }
    const answer = o.first_answer_s;
    if (answer !== null && ((o.first_delta_s !== null && answer < o.first_delta_s) || answer > o.end_s)) {
      say(`client_offsets_s.first_answer_s ${answer} is outside first_delta_s..end_s`);
    }
    for (const key of ["chunk_offsets_s", "reasoning_chunk_offsets_s"] as const) {
      const stamps = outcome[key] ?? [];
      const bad = stamps.findIndex((s, i) => s < 0 || s > o.end_s || (i > 0 && s < stamps[i - 1]!));
      if (bad >= 0) {
        say(`${STAMP_LISTS[key]} stamp ${bad} (${stamps[bad]} s) is negative, out of order or after end_s ${o.end_s}`);
      }
    }
  }
}
