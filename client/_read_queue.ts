/**
 * Network reads are stamped the moment they arrive and decoded later, in arrival order, in slices of at most
 * SLICE_MS with a return to the event loop between slices. When many streams are busy, a read that arrives while
 * others are being decoded is then stamped at the next slice boundary, not after every read ahead of it.
 *
 * Between slices the queue yields with setImmediate, or, while more than one exchange is in flight, with a zero
 * timer. Measured on Deno 2.9: while immediates (or promise-based yields) keep coming, the runtime looks at the
 * sockets only now and then (first-delta stamps 10-40 ms late at 16 saturated streams); it polls them when it has
 * nothing ready to run, which a pending timer brings about. A zero timer takes about 2 ms to fire there, so a read
 * that arrives while the queue waits on it ends the wait: the sockets were just looked at, and decoding goes on at
 * once (bench:client c=64: stamp error p50 0.01-0.3 ms instead of 0.5 ms). With one exchange in flight the only
 * socket with anything to read is its own, whose reads keep their order behind the queue anyway, and a timer idled
 * until it fired at the end of each response. Measured with bench:client against the rule before (a timer after
 * every second busy slice, whatever was in flight), two alternated runs each, both with READ_RELEASE
 * (_http_client.ts): one stream 237-246k -> 298-300k token events/s; 1,024 streams, first-token stamp error p50
 * 1.31-1.45 -> 0.75-0.77 ms. (The stamp error at one saturated stream was not measured apart: 0.03 ms either way.)
 */
import { setImmediate } from "node:timers";

const SLICE_MS = 0.5;

/** One queued piece of work and where its failure goes. */
interface Task {
  run: () => void;
  fail: (error: unknown) => void;
}

/** Stands in for a task already run. */
const DONE: Task = { run: () => {}, fail: () => {} };

let tasks: Task[] = [];
let head = 0;
let scheduled = false;
/** Exchanges in flight (exchangeInFlight). */
let inFlight = 0;
/** The zero timer the queue is waiting on, if it yielded with one. */
let timer: ReturnType<typeof setTimeout> | null = null;

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  if (inFlight > 1) timer = setTimeout(drain, 0);
  else setImmediate(drain);
}

function drain(): void {
  scheduled = false;
  timer = null;
  const stopAt = performance.now() + SLICE_MS;
  while (head < tasks.length) {
    const task = tasks[head]!;
    // Let go of the task at once: a queue that never runs empty keeps its array, and a finished request held by
    // a stale entry would survive into the old generation (and cost a mark-compact to free).
    tasks[head] = DONE;
    head++;
    try {
      task.run();
    } catch (error) {
      // A throw here would be uncaught (it runs from a timer) and end the process: the task's owner gets it, and
      // the other streams go on.
      try {
        task.fail(error);
      } catch {
        // The owner could not take it either; nothing else here can.
      }
    }
    if (performance.now() >= stopAt) break;
  }
  if (head >= tasks.length) {
    tasks = [];
    head = 0;
  } else {
    if (head > 4096) {
      tasks = tasks.slice(head);
      head = 0;
    }
    schedule();
  }
}

/**
 * Queues the work of one network read (or close) that was already stamped; it runs soon, in arrival order. When
 * `run` throws, `fail` receives the error (never rethrown: it would end the process).
 */
export function enqueueRead(run: () => void, fail: (error: unknown) => void): void {
  tasks.push({ run, fail });
  if (!scheduled) {
    // The first slice after a read starts at once; only a queue still busy after a slice yields with a timer.
    scheduled = true;
    setImmediate(drain);
  } else if (timer !== null) {
    // The queue yielded with a timer so that the sockets would be looked at; a read arriving says they were:
    // decoding goes on now instead of idling until the timer fires.
    clearTimeout(timer);
    timer = null;
    setImmediate(drain);
  }
}

/** An exchange started (+1) or ended (-1): how many are in flight decides how a busy queue yields. */
export function exchangeInFlight(change: 1 | -1): void {
  inFlight += change;
}

/** Exchanges in flight now (tests check that every way an exchange ends counts it out). */
export function exchangesInFlight(): number {
  return inFlight;
}
