/** Formatting of result values for people: units, "not measured" for null, no statistics computed here. */
import { type Metric, METRIC_UNITS, type NameVersion, type Summary } from "../contract/mod.ts";

/** What a reader sees where the result holds null. */
export const NOT_MEASURED = "not measured";

/** A string value, or "not measured" for null. */
export function text(value: string | null | undefined): string {
  return value === null || value === undefined || value === "" ? NOT_MEASURED : value;
}

/** A number with a fixed count of decimals, or "not measured" for null (never NaN or Infinity). */
export function fixed(value: number | null | undefined, decimals: number): string {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(decimals) : NOT_MEASURED;
}

/** Decimals of each unit: rates to 0.1 tokens/s, latencies to the millisecond. */
export function metricDecimals(metric: Metric): number {
  return METRIC_UNITS[metric] === "s" ? 3 : 1;
}

/** "41.2 (39.8-42.0, n=3)", or "not measured (n=0)" when the summary has no valid sample. */
export function summaryCell(summary: Summary | undefined): string {
  if (!summary) return NOT_MEASURED;
  if (summary.median === null) return `${NOT_MEASURED} (n=${summary.n})`;
  const d = metricDecimals(summary.metric);
  return `${fixed(summary.median, d)} (${fixed(summary.min, d)}-${fixed(summary.max, d)}, n=${summary.n})`;
}

/** "202.4 s (3 min 22 s)", or "not measured". */
export function duration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return NOT_MEASURED;
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  return minutes > 0 ? `${seconds.toFixed(1)} s (${minutes} min ${whole % 60} s)` : `${seconds.toFixed(1)} s`;
}

/** "24.0 GiB (25769803776 bytes)", or "not measured". */
export function bytes(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return NOT_MEASURED;
  return `${(value / 2 ** 30).toFixed(1)} GiB (${value} bytes)`;
}

/** "name version" pairs joined by commas; "none" for an empty list, "not measured" for null. */
export function nameVersions(list: readonly NameVersion[] | NameVersion | null): string {
  if (list === null) return NOT_MEASURED;
  const items = Array.isArray(list) ? list : [list as NameVersion];
  return items.length === 0 ? "none" : items.map((item) => `${item.name} ${item.version}`).join(", ");
}

/** A list of strings joined by commas; "none" when empty, "not measured" for null. */
export function list(items: readonly string[] | null): string {
  if (items === null) return NOT_MEASURED;
  return items.length === 0 ? "none" : items.join(", ");
}

/** An engine option object as compact JSON; "none" when empty, "not measured" for null. */
export function options(value: Record<string, unknown> | null): string {
  if (value === null) return NOT_MEASURED;
  return Object.keys(value).length === 0 ? "none" : JSON.stringify(value);
}

/** Collapses whitespace runs (newlines included) so a value stays on one line. */
export function oneLine(value: string): string {
  return value.replace(/\s+/g, " ").trim();
}
