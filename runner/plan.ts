/**
 * The stage plan of the standard protocol: which frozen fixtures are sent, in which order, and which of them are
 * released together. The plan is fixed by the protocol; nothing here adapts it to the machine.
 */
import type { Fixture } from "../fixtures/types.ts";
import { PERFORMANCE_CASES, type Phase, SANITY_IDS } from "../report/contract.ts";

/** Performance repetitions and optional concurrency rounds (protocol: 3 each). */
export const REPETITIONS = 3 as const;
/** Clients released together in one optional concurrency round. */
export const CLIENTS_PER_ROUND = 4 as const;

/** Requests released together: one request at concurrency 1, or the four requests of one concurrency round. */
export interface PlannedBatch {
  phase: Phase;
  /** Concurrency round 1..3; null for the required stages. */
  round: number | null;
  /** How many requests the protocol releases together in this batch (1 or 4). */
  concurrency: number;
  fixtures: Fixture[];
}

/** The whole schedule of one run. */
export interface RunPlan {
  optionalConcurrency: boolean;
  batches: PlannedBatch[];
  /** Every scheduled fixture in dispatch order (22 required, plus 12 when the optional stage is selected). */
  fixtures: Fixture[];
}

/** Request ids in protocol order: warm-up, performance (r1..r3 of short, 4k, 16k), sanity, optional rounds. */
export function scheduledRequestIds(optionalConcurrency: boolean): string[] {
  const ids = ["warmup"];
  for (let r = 1; r <= REPETITIONS; r++) {
    for (const caseId of PERFORMANCE_CASES) ids.push(`performance-${caseId}-r${r}`);
  }
  for (const sanityId of SANITY_IDS) ids.push(`sanity-${sanityId}`);
  if (optionalConcurrency) {
    for (let r = 1; r <= REPETITIONS; r++) {
      for (let j = 1; j <= CLIENTS_PER_ROUND; j++) ids.push(`concurrency-r${r}-c${j}`);
    }
  }
  return ids;
}

/**
 * Builds the plan from the loaded bundle (any order; extra fixtures are ignored).
 * @throws {RangeError} when a scheduled fixture is missing or its phase/round disagrees with its id.
 */
export function planRun(fixtures: readonly Fixture[], options: { optionalConcurrency: boolean }): RunPlan {
  const byId = new Map(fixtures.map((f) => [f.id, f]));
  const take = (id: string, phase: Phase): Fixture => {
    const fixture = byId.get(id);
    if (!fixture) {
      throw new RangeError(`Cannot plan the run: fixture "${id}" is not in the bundle; rebuild or restore it`);
    }
    if (fixture.phase !== phase) {
      throw new RangeError(`Cannot plan the run: fixture "${id}" has phase "${fixture.phase}", expected "${phase}"`);
    }
    return fixture;
  };
  const batches: PlannedBatch[] = [];
  const single = (id: string, phase: Phase) =>
    batches.push({ phase, round: null, concurrency: 1, fixtures: [take(id, phase)] });
  single("warmup", "warmup");
  for (let r = 1; r <= REPETITIONS; r++) {
    for (const caseId of PERFORMANCE_CASES) single(`performance-${caseId}-r${r}`, "performance");
  }
  for (const sanityId of SANITY_IDS) single(`sanity-${sanityId}`, "sanity");
  if (options.optionalConcurrency) {
    for (let r = 1; r <= REPETITIONS; r++) {
      const round: Fixture[] = [];
      for (let j = 1; j <= CLIENTS_PER_ROUND; j++) {
        const fixture = take(`concurrency-r${r}-c${j}`, "concurrency");
        if (fixture.round !== r) {
          throw new RangeError(
            `Cannot plan the run: fixture "${fixture.id}" says round ${fixture.round}, expected ${r}`,
          );
        }
        round.push(fixture);
      }
      batches.push({ phase: "concurrency", round: r, concurrency: CLIENTS_PER_ROUND, fixtures: round });
    }
  }
  return { optionalConcurrency: options.optionalConcurrency, batches, fixtures: batches.flatMap((b) => b.fixtures) };
}
