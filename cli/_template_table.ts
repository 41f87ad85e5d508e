/** The template check's counts side by side, one line per request (run before the warm-up, probe --template). */
import type { TemplateCheck } from "../runner/mod.ts";

/** The table's lines: request, frozen and server token counts, shared prefixes, verdict and reason. */
export function templateCheckLines(check: TemplateCheck): string[] {
  if (!check.supported) return [`template check not run: ${check.reason}`];
  const head = ["request", "frozen", "server", "prefix frozen", "prefix server", "verdict"];
  const rows = check.rows.map((r) => [
    r.id,
    String(r.frozen_tokens),
    r.server_tokens === null ? "-" : String(r.server_tokens),
    String(r.frozen_max_shared_prefix_tokens),
    r.server_max_shared_prefix_tokens === null ? "-" : String(r.server_max_shared_prefix_tokens),
    r.verdict + (r.reason === null ? "" : `: ${r.reason}`),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((
      cell,
      i,
    ) => (i === cells.length - 1 ? cell : i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join("  ");
  const matched = check.rows.length - check.mismatches - check.unchecked;
  return [
    `template check (${check.source}): ${matched} match, ${check.mismatches} mismatch, ${check.unchecked} unchecked`,
    line(head),
    ...rows.map(line),
  ];
}
