// @ts-check
/**
 * Plausibility, checked in the reader's browser with the site's own code, from the table in docs/results.md
 * ("Plausibility"): a value the other checks rebuild and find consistent can still be impossible (more output
 * tokens than the request's cap, a run started in 2099, a chunk before its request was sent, 1e29 W). Each
 * impossible value is a problem that names it.
 */
import { isObject } from "./evidence.js";

/** The protocol's first draft: no result is older. */
const EARLIEST_MS = Date.UTC(2025, 0, 1);
const DAY_MS = 86_400_000;
/** How far a dispatch stamp may stray from start + offset (a wall clock may step during a run). */
const EPOCH_SLACK_MS = 3_600_000;
const DAY_S = 86_400;
const MAX_TOKENS = 100_000_000;
const WATTS_PER_GPU = 5000;

/** @param {unknown} v @returns {v is number} */
const isNum = (v) => typeof v === "number" && Number.isFinite(v);

/**
 * @param {Record<string, unknown>} record @param {string} id @param {string[]} out
 */
function recordProblems(record, id, out) {
  const tokens = isObject(record.tokens) ? record.tokens : {};
  const cap = record.max_output_tokens;
  for (const [key, n] of Object.entries(tokens)) {
    if (!isNum(n)) continue;
    if (n > MAX_TOKENS) out.push(`${id}: tokens.${key} ${n} is more than any engine counts`);
    if ((key === "output_tokens" || key === "decode_tokens") && isNum(cap) && n > cap) {
      out.push(`${id}: tokens.${key} ${n} is more than the request's cap of ${cap} tokens`);
    }
  }
  const input = tokens.input_tokens;
  for (const key of ["cached_tokens", "read_tokens"]) {
    const n = tokens[key];
    if (isNum(n) && isNum(input) && n > input) {
      out.push(`${id}: tokens.${key} ${n} is more than its ${input} prompt tokens`);
    }
  }
  const t = isObject(record.timings) ? record.timings : {};
  for (const [key, s] of Object.entries(t)) {
    if (isNum(s) && (s < 0 || s > DAY_S)) out.push(`${id}: timings.${key} ${s} s is negative or longer than a day`);
  }
  const { ttft_s: ttft, first_answer_s: answer, total_s: total } = t;
  if ((isNum(ttft) && isNum(answer) && ttft > answer) || (isNum(answer) && isNum(total) && answer > total)) {
    out.push(`${id}: the first token, first answer and end are out of order`);
  } else if (isNum(ttft) && isNum(total) && ttft > total) out.push(`${id}: the first token comes after the end`);
}

/**
 * One evidence line's clocks: the dispatch stamp within an hour of start + offset, the client's offsets non-negative,
 * in stream order and inside the stream.
 * @param {Record<string, unknown>} line @param {string} id @param {number} startedMs @param {string[]} out
 */
function lineProblems(line, id, startedMs, out) {
  const epoch = line.dispatched_at_epoch_ms, offset = line.dispatch_offset_s;
  if (isNum(epoch) && isNum(offset) && Number.isFinite(startedMs)) {
    if (Math.abs(epoch - startedMs - offset * 1000) > EPOCH_SLACK_MS) {
      out.push(`${id}: its dispatch stamp ${epoch} ms is not within an hour of the run's start plus its offset`);
    }
  }
  const o = isObject(line.client_offsets_s) ? line.client_offsets_s : {};
  const end = o.end_s;
  let last = -Infinity;
  // The response's first byte comes before its head is whole (a head may span reads).
  for (const key of ["first_byte_s", "headers_s", "first_delta_s", "end_s"]) {
    const s = o[key];
    if (!isNum(s)) continue;
    if (s < 0 || s > DAY_S) out.push(`${id}: client_offsets_s.${key} ${s} is negative or past a day`);
    if (s < last) out.push(`${id}: client_offsets_s.${key} ${s} comes before the offset before it`);
    last = Math.max(last, s);
  }
  const answer = o.first_answer_s;
  if (
    isNum(answer) &&
    ((isNum(o.first_delta_s) && answer < o.first_delta_s) || (isNum(end) && answer > end) || answer < 0)
  ) {
    out.push(`${id}: client_offsets_s.first_answer_s ${answer} is outside the stream`);
  }
  for (const key of ["chunk_offsets_s", "reasoning_chunk_offsets_s"]) {
    const stamps = Array.isArray(line[key]) ? line[key] : [];
    const bad = stamps.findIndex((s, i) =>
      !isNum(s) || s < 0 || (isNum(end) && s > end) || (i > 0 && isNum(stamps[i - 1]) && s < stamps[i - 1])
    );
    const written = key.replace(/_s$/, "_us");
    if (bad >= 0) out.push(`${id}: ${written} stamp ${bad} is negative, out of order or after the stream ended`);
  }
}

/**
 * @param {Record<string, unknown>} power @param {string[]} out
 */
function powerProblems(power, out) {
  const limit = WATTS_PER_GPU * (isNum(power.gpus) && power.gpus >= 1 ? power.gpus : 1);
  for (const list of ["requests", "cases"]) {
    const rows = Array.isArray(power[list]) ? power[list] : [];
    for (const [i, row] of rows.entries()) {
      if (!isObject(row)) continue;
      const { mean_power_w: mean, peak_power_w: peak, energy_j: energy } = row;
      if ([mean, peak].some((w) => isNum(w) && (w < 0 || w > limit))) {
        out.push(`extensions.gpu_power.${list}[${i}]: a power of ${mean} / ${peak} W is negative or past ${limit} W`);
      }
      if (isNum(mean) && isNum(peak) && mean > peak) out.push(`extensions.gpu_power.${list}[${i}]: mean above peak`);
      if (isNum(energy) && energy < 0) out.push(`extensions.gpu_power.${list}[${i}]: negative energy`);
    }
  }
}

/**
 * Every implausible value of a result and its evidence lines, each as "implausible: ...".
 * @param {Record<string, unknown>} result @param {Map<string, Record<string, unknown>>} lines by request id
 * @param {number} nowMs the reader's clock
 * @returns {string[]}
 */
export function plausibilityProblems(result, lines, nowMs) {
  /** @type {string[]} */
  const out = [];
  const run = isObject(result.run) ? result.run : {};
  const startedMs = typeof run.started_at === "string" ? Date.parse(run.started_at) : NaN;
  if (Number.isFinite(startedMs) && (startedMs < EARLIEST_MS || startedMs > nowMs + DAY_MS)) {
    out.push(`run.started_at ${run.started_at} is before 2025 or in the future`);
  }
  for (const record of Array.isArray(result.requests) ? result.requests : []) {
    if (!isObject(record)) continue;
    const id = String(record.id);
    recordProblems(record, id, out);
    const line = lines.get(id);
    if (line !== undefined && line.status !== "skipped") lineProblems(line, id, startedMs, out);
  }
  const extensions = isObject(result.extensions) ? result.extensions : {};
  if (isObject(extensions.gpu_power)) powerProblems(extensions.gpu_power, out);
  return out.map((p) => `implausible: ${p}`);
}

/**
 * A review's time against the run it reviewed: not before the run began, not in the future.
 * @param {unknown} reviewedAt the manifest entry's reviewed_at @param {unknown} startedAt the result's run.started_at
 * @param {number} nowMs the reader's clock
 * @returns {string[]}
 */
export function reviewProblems(reviewedAt, startedAt, nowMs) {
  if (typeof reviewedAt !== "string") return [];
  const reviewed = Date.parse(reviewedAt);
  // A review time is kept to the second: compare with the start's second.
  const started = typeof startedAt === "string" ? Math.floor(Date.parse(startedAt) / 1000) * 1000 : NaN;
  if (reviewed > nowMs + DAY_MS) return [`implausible: the entry's reviewed_at ${reviewedAt} is in the future`];
  if (reviewed < started) {
    return [`implausible: the entry's reviewed_at ${reviewedAt} is before the run began (${startedAt})`];
  }
  return [];
}
