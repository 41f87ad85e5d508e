/** The optional stage's rounds as a section: each round's wall, aggregate rate, failures and who waited for a slot. */
import type { Result } from "../contract/mod.ts";
import * as f from "./_format.ts";
import type { Section } from "./_section.ts";

/** extensions.round_queueing as the run recorded it (score/'s roundQueueing), by round; empty when absent. */
function queueingOf(result: Result): Map<number, { waited: number | null; waits: number[]; sources: string[] }> {
  const out = new Map<number, { waited: number | null; waits: number[]; sources: string[] }>();
  const raw = result.extensions?.["round_queueing"];
  if (!Array.isArray(raw)) return out;
  for (const round of raw) {
    if (typeof round !== "object" || round === null) continue;
    const r = round as Record<string, unknown>;
    const requests = Array.isArray(r["requests"]) ? r["requests"] as Record<string, unknown>[] : [];
    const queued = requests.filter((w) => w?.["queued"] === true);
    out.set(Number(r["round"]), {
      waited: typeof r["waited"] === "number" ? r["waited"] : null,
      waits: queued.map((w) => w["wait_s"]).filter((v): v is number => typeof v === "number"),
      sources: [...new Set(requests.map((w) => w?.["source"]).filter((v): v is string => typeof v === "string"))],
    });
  }
  return out;
}

export function roundsSection(result: Result): Section | null {
  if (!result.run.optional_concurrency) return null;
  const queueing = queueingOf(result);
  const waitedCell = (round: number, requests: number): string => {
    const q = queueing.get(round);
    if (q === undefined || q.waited === null) return f.NOT_MEASURED;
    if (q.waited === 0) return `0 of ${requests}`;
    const low = Math.min(...q.waits);
    const high = Math.max(...q.waits);
    const span = q.waits.length === 0 ? "" : ` (${f.fixed(low, 2)}${high > low ? `-${f.fixed(high, 2)}` : ""} s)`;
    return `${q.waited} of ${requests}${span}`;
  };
  const sources = [...new Set([...queueing.values()].flatMap((q) => q.sources))];
  return {
    title: "Concurrency rounds",
    paragraphs: [
      `Four short requests released together per round on a server with ${
        result.configuration.server_capacity ?? f.NOT_MEASURED
      } slot(s); the aggregate rate is accepted output tokens over the round's wall time.`,
    ],
    table: {
      head: ["Round", "Requests", "Waited for a slot", "Wall s", "Output tokens", "Aggregate tok/s", "Failed"],
      rows: result.concurrency_rounds.map((r) => [
        String(r.round),
        String(r.request_ids.length),
        waitedCell(r.round, r.request_ids.length),
        f.fixed(r.wall_s, 3),
        r.output_tokens === null ? f.NOT_MEASURED : String(r.output_tokens),
        f.fixed(r.aggregate_tps, 1),
        String(r.failed),
      ]),
    },
    ...(sources.length > 0
      ? {
        notes: [
          "Waited for a slot: requests the engine began after the first server_capacity of the round (first come, " +
          `first served), with how long they waited from dispatch. Measured from ${sources.map(f.oneLine).join("; ")}.`,
        ],
      }
      : {}),
  };
}
