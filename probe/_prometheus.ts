/** A small reader of the Prometheus text exposition format, enough for llama.cpp's /metrics. */

/**
 * Sample name (with its label set, if any, as written) -> value. Comments, blank lines, unparsable lines and
 * non-finite values are skipped; a later duplicate wins.
 */
export function parsePrometheusText(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*(?:\{[^}]*\})?)\s+(\S+)(?:\s+-?\d+)?$/.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    const value = Number(match[2]);
    if (Number.isFinite(value)) samples.set(match[1], value);
  }
  return samples;
}
