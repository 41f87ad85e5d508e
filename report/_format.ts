/** Formatting of result values for people: units, "not measured" for null, no statistics computed here. */
import { type Metric, METRIC_UNITS, type NameVersion } from "../contract/mod.ts";

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

/** "202.4 s (3 min 22 s)", or "not measured". */
export function duration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return NOT_MEASURED;
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  return minutes > 0 ? `${seconds.toFixed(1)} s (${minutes} min ${whole % 60} s)` : `${seconds.toFixed(1)} s`;
}

/** "24.0 GiB (25769803776 bytes)" ("24.0 GiB", or "20.1 MiB" below 1 GiB, without `exact`), or "not measured". */
export function bytes(value: number | null, exact = true): string {
  if (value === null || !Number.isFinite(value)) return NOT_MEASURED;
  const gib = `${(value / 2 ** 30).toFixed(1)} GiB`;
  if (exact) return `${gib} (${value} bytes)`;
  return value < 2 ** 30 ? `${(value / 2 ** 20).toFixed(1)} MiB` : gib;
}

/** "41.2 [39.8-42.0] n=3" from a summary or a range, or "not measured (n=0)". */
export function rangeCell(
  range: { median: number | null; min: number | null; max: number | null; n: number } | null,
  metric: Metric,
): string {
  if (range === null) return NOT_MEASURED;
  if (range.median === null) return `${NOT_MEASURED} (n=${range.n})`;
  const d = metricDecimals(metric);
  return `${fixed(range.median, d)} [${fixed(range.min, d)}-${fixed(range.max, d)}] n=${range.n}`;
}

/** A range of seconds scaled into `unit` ("12.30 ms [11.90-13.10] n=3"), or "not measured (n=0)". */
export function scaledRange(
  range: { median: number | null; min: number | null; max: number | null; n: number },
  scale: number,
  decimals: number,
  unit: string,
): string {
  if (range.median === null) return `${NOT_MEASURED} (n=${range.n})`;
  const x = (value: number | null) => fixed(value === null ? null : value * scale, decimals);
  return `${x(range.median)} ${unit} [${x(range.min)}-${x(range.max)}] n=${range.n}`;
}

/** Token counts: "4101", or "4101 [4099-4103]" when they differ; "not measured" without a count. */
export function tokenRange(range: { median: number | null; min: number | null; max: number | null }): string {
  if (range.median === null || range.min === null || range.max === null) return NOT_MEASURED;
  const median = Number.isInteger(range.median) ? String(range.median) : range.median.toFixed(1);
  return range.min === range.max ? median : `${median} [${range.min}-${range.max}]`;
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
