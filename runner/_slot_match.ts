/**
 * Which slot of a GET /slots reading ran which request of a batch. llama-server shows, per slot, the last task it
 * ran (its id_task and params); task ids only grow. So the tasks of a batch are the slots whose id_task is above
 * the highest one seen at the previous reading, and within a batch each request is told apart by its seed (every
 * request of a round has its own). A slot that ran two requests of a round (a server with fewer slots than
 * clients) shows only the later one: the earlier has no reading, and says why.
 */
import { isJsonObject, type SlotReading } from "../contract/mod.ts";

/** The request side of a match: its id, the seed it sent and its dispatch on the run's clock. */
export interface BatchRequest {
  id: string;
  seed: unknown;
  dispatchOffsetS: number;
}

/** A slot that holds a task newer than the previous reading. */
interface NewTask {
  slotId: unknown;
  idTask: number;
  params: unknown;
  seed: unknown;
}

const SOURCE = "GET /slots";

/** The highest id_task any slot reports, or `floor` when none reports a higher one. */
export function highestTask(slots: readonly unknown[], floor: number): number {
  let highest = floor;
  for (const slot of slots) {
    const task = isJsonObject(slot) ? slot["id_task"] : undefined;
    if (typeof task === "number" && Number.isFinite(task) && task > highest) highest = task;
  }
  return highest;
}

/**
 * One reading per request of the batch (by id), from the slots read after it; `seenTask` is the highest id_task
 * of the previous reading (-1 before any task), `capacity` the server's slot count (or null) for the words.
 */
export function matchSlots(
  slots: readonly unknown[],
  batch: readonly BatchRequest[],
  seenTask: number,
  capacity: number | null,
): Map<string, SlotReading> {
  const fresh: NewTask[] = [];
  for (const slot of slots) {
    if (!isJsonObject(slot)) continue;
    const task = slot["id_task"];
    if (typeof task !== "number" || !(task > seenTask)) continue;
    const params = slot["params"];
    fresh.push({ slotId: slot["id"], idTask: task, params, seed: isJsonObject(params) ? params["seed"] : undefined });
  }
  const readings = new Map<string, SlotReading>();
  const found = (request: BatchRequest, task: NewTask, how: string) => {
    readings.set(request.id, {
      kind: "slot",
      source: SOURCE,
      matched_by: `${how} (slot ${String(task.slotId)}, id_task ${task.idTask})`,
      slot_id: task.slotId,
      id_task: task.idTask,
      params: task.params,
    });
  };
  const since = seenTask < 0 ? "since the run began" : `after id_task ${seenTask}`;
  if (fresh.length === 0) {
    for (const request of batch) {
      readings.set(request.id, {
        kind: "none",
        reason: `no slot of ${SOURCE} shows a task ${since}: the request did not reach a slot`,
      });
    }
    return readings;
  }
  if (batch.length === 1 && fresh.length === 1) {
    found(batch[0]!, fresh[0]!, `the only task ${since}`);
    return readings;
  }
  const left = new Set(fresh);
  const unmatched: BatchRequest[] = [];
  for (const request of batch) {
    const bySeed = [...left].filter((task) => task.seed === request.seed);
    if (bySeed.length === 1) {
      found(request, bySeed[0]!, `seed ${String(request.seed)} among ${fresh.length} tasks ${since}`);
      left.delete(bySeed[0]!);
    } else unmatched.push(request);
  }
  if (unmatched.length === 1 && left.size === 1) {
    found(unmatched[0]!, [...left][0]!, `the only task ${since} left unmatched by seed`);
    return readings;
  }
  if (unmatched.length > 1 && left.size === unmatched.length) {
    // No seed tells them apart (the engine ran other seeds): tasks get ids in arrival order, which on loopback is
    // the dispatch order.
    const tasks = [...left].sort((a, b) => a.idTask - b.idTask);
    const requests = [...unmatched].sort((a, b) => a.dispatchOffsetS - b.dispatchOffsetS);
    requests.forEach((request, i) => found(request, tasks[i]!, `task order: dispatched ${i + 1} of ${tasks.length}`));
    return readings;
  }
  for (const request of unmatched) {
    const reason = batch.length === 1
      ? `${fresh.length} slots of ${SOURCE} show tasks ${since} (another client?), none with seed ` +
        `${String(request.seed)}: the request's task cannot be told apart`
      : fresh.length < batch.length
      ? `its slot ran a later request of the same round before ${SOURCE} was read: each slot shows only its last ` +
        `task, and ${batch.length} requests shared ${capacity ?? fresh.length} slot(s)`
      : `no task ${since} in ${SOURCE} has seed ${String(request.seed)}`;
    readings.set(request.id, { kind: "none", reason });
  }
  return readings;
}
