/**
 * The stage plan of the standard protocol: which frozen fixtures are sent, in which order, and which of them are
 * released together. The plan is fixed by the protocol; nothing here adapts it to the machine.
 */
import { CLIENTS_PER_ROUND, type Fixture, type Phase, schedule } from "../contract/mod.ts";

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

/**
 * Builds the plan from the loaded bundle (any order; extra fixtures are ignored).
 * @throws {RangeError} when a scheduled fixture is missing or its phase/round disagrees with its id.
 */
export function planRun(fixtures: readonly Fixture[], options: { optionalConcurrency: boolean }): RunPlan {
  const byId = new Map(fixtures.map((f) => [f.id, f]));
  const batches: PlannedBatch[] = [];
  for (const scheduled of schedule(options.optionalConcurrency)) {
    const fixture = byId.get(scheduled.id);
    if (!fixture) {
      throw new RangeError(
        `Cannot plan the run: fixture "${scheduled.id}" is not in the bundle; rebuild or restore it`,
      );
    }
    if (fixture.phase !== scheduled.phase) {
      throw new RangeError(
        `Cannot plan the run: fixture "${fixture.id}" has phase "${fixture.phase}", expected "${scheduled.phase}"`,
      );
    }
    if (scheduled.round === null) {
      batches.push({ phase: scheduled.phase, round: null, concurrency: 1, fixtures: [fixture] });
      continue;
    }
    if (fixture.round !== scheduled.round) {
      throw new RangeError(
        `Cannot plan the run: fixture "${fixture.id}" says round ${fixture.round}, expected ${scheduled.round}`,
      );
    }
    // The clients of one round are released together: consecutive scheduled requests of the same round.
    const last = batches.at(-1);
    if (last !== undefined && last.round === scheduled.round) last.fixtures.push(fixture);
    else {batches.push({
        phase: scheduled.phase,
        round: scheduled.round,
        concurrency: CLIENTS_PER_ROUND,
        fixtures: [fixture],
      });}
  }
  return { optionalConcurrency: options.optionalConcurrency, batches, fixtures: batches.flatMap((b) => b.fixtures) };
}
