/**
 * The ending of `report A B` on a terminal: how many configurations were compared and what each candidate's
 * verdicts add up to, and where the rest is (the table of every metric when stdout is a file, CSV, the picture).
 */
import type { Comparison } from "../report/mod.ts";
import type { Ending } from "./_ending.ts";

/** "B against A: 2 better, 1 worse, 8 not resolved", one line per candidate and baseline, in table order. */
export function verdictCounts(comparison: Comparison): string[] {
  const counts = new Map<string, Record<"better" | "worse" | "not resolved", number>>();
  for (const group of comparison.groups) {
    for (const section of group.sections) {
      for (const d of section.deltas) {
        const key = `${d.candidate} against ${d.baseline}`;
        const c = counts.get(key) ?? { better: 0, worse: 0, "not resolved": 0 };
        c[d.verdict]++;
        counts.set(key, c);
      }
    }
  }
  return [...counts].map(([key, c]) =>
    `${key}: ${c.better} better, ${c.worse} worse, ${c["not resolved"]} not resolved`
  );
}

/** The ending: the status with the exit code, the verdict counts, and the commands that show the rest. */
export function comparisonEnding(
  comparison: Comparison,
  refused: number,
  dirs: readonly string[],
  code: number,
): Ending {
  const configurations = comparison.groups.reduce((n, g) => n + g.configurations.length, 0);
  const groups = comparison.groups.length;
  const folders = dirs.join(" ");
  const same = folders.length <= 40 ? folders : "FOLDER ...";
  const status = `report: ${configurations} configuration(s) in ${groups} group(s) compared` +
    `${refused > 0 ? `, ${refused} folder(s) refused` : ""} (exit ${code})`;
  return {
    status,
    numbers: verdictCounts(comparison),
    problems: [],
    missing: { notGiven: [], notMeasurable: [], failed: [] },
    next: configurations === 0 ? ["pass the result folders a run wrote (each holds results.json)"] : [
      `strata-bench report ${same} > comparison.md (every metric)`,
      `strata-bench report ${same} --format csv (one row a metric)`,
      `strata-bench report ${same} --svg (the picture)`,
    ],
    folder: null,
  };
}
