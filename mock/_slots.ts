/**
 * Slots and the FIFO queue of deferred requests, like llama-server's scheduler: a request takes an idle slot at
 * once or waits in arrival order; a released slot goes to the oldest waiter it can serve.
 */
import { cachedTokensOf, commonPrefixChars, type SlotCache } from "./_prompt.ts";

/** One slot: whether it is busy and the prompt its cache holds. */
export interface Slot {
  id: number;
  busy: boolean;
  cache: SlotCache | null;
  /**
   * Request index of the task the slot is processing, or of the last one it processed (llama-server shows the
   * previous task's id and params after it ends); -1 before its first task.
   */
  taskIndex: number;
  /** The parameters the slot's current or last task runs with, as llama-server resolves them; null before any. */
  params: Record<string, unknown> | null;
  /** Tokens decoded so far by the current request. */
  decoded: number;
  /** Increases with every assignment; the least recently used idle slot has the smallest. */
  lastUsedSeq: number;
}

interface Waiter {
  prompt: string;
  requiredSlot: number | null;
  resolve(slot: Slot): void;
  reject(reason: Error): void;
}

/** The pool of slots and the queue. */
export interface SlotPool {
  slots: Slot[];
  /**
   * Resolves with a slot for this prompt: at once when one is idle (and nobody waits before it), else in FIFO
   * order. Rejects when `signal` aborts while waiting (the waiter leaves the queue) or the pool is shut down.
   */
  acquire(prompt: string, requiredSlot: number | null, signal: AbortSignal): Promise<Slot>;
  release(slot: Slot): void;
  /** Requests waiting for a slot (llama-server's requests_deferred). */
  deferred(): number;
  /** Busy slots (requests_processing). */
  processing(): number;
  /** Rejects every waiter. */
  shutdown(reason: Error): void;
}

/** Fraction of the new prompt a slot's cache must share for the slot to be preferred (llama-server's -sps 0.1). */
const SIMILARITY_THRESHOLD = 0.1;

/** Creates a pool of `count` idle slots with empty caches. */
export function createSlotPool(count: number, onChange: () => void): SlotPool {
  const slots: Slot[] = Array.from({ length: count }, (_, id) => ({
    id,
    busy: false,
    cache: null,
    taskIndex: -1,
    params: null,
    decoded: 0,
    lastUsedSeq: 0,
  }));
  const queue: Waiter[] = [];
  let seq = 0;

  function take(slot: Slot): Slot {
    slot.busy = true;
    slot.decoded = 0;
    slot.lastUsedSeq = ++seq;
    return slot;
  }

  function drain(): void {
    for (let i = 0; i < queue.length;) {
      const waiter = queue[i]!;
      const slot = pickSlot(slots, waiter.prompt, waiter.requiredSlot);
      if (slot === null) {
        i++;
        continue;
      }
      queue.splice(i, 1);
      waiter.resolve(take(slot));
    }
  }

  return {
    slots,
    acquire(prompt, requiredSlot, signal) {
      if (queue.length === 0) {
        const slot = pickSlot(slots, prompt, requiredSlot);
        if (slot !== null) {
          take(slot);
          onChange();
          return Promise.resolve(slot);
        }
      }
      return waitForSlot(queue, { prompt, requiredSlot, signal, onChange });
    },
    release(slot) {
      slot.busy = false;
      drain();
      onChange();
    },
    deferred: () => queue.length,
    processing: () => slots.filter((slot) => slot.busy).length,
    shutdown(reason) {
      for (const waiter of queue.splice(0)) waiter.reject(reason);
      onChange();
    },
  };
}

/**
 * The slot for a prompt: the required one if idle; else the idle slot whose cache shares the most of it, above the
 * similarity threshold; else the idle slot used longest ago. Null when none is idle.
 */
function pickSlot(slots: readonly Slot[], prompt: string, requiredSlot: number | null): Slot | null {
  if (requiredSlot !== null) {
    const slot = slots[requiredSlot % slots.length]!;
    return slot.busy ? null : slot;
  }
  const idle = slots.filter((slot) => !slot.busy);
  if (idle.length === 0) return null;
  let best: Slot | null = null;
  let bestShared = 0;
  for (const slot of idle) {
    const shared = slot.cache === null ? 0 : commonPrefixChars(slot.cache.prompt, prompt);
    if (shared > bestShared) [best, bestShared] = [slot, shared];
  }
  if (best !== null && bestShared / Math.max(1, prompt.length) > SIMILARITY_THRESHOLD) return best;
  return idle.reduce((a, b) => (b.lastUsedSeq < a.lastUsedSeq ? b : a));
}

/** Queues a request for a slot; a disconnect takes it off the queue and rejects. */
function waitForSlot(
  queue: Waiter[],
  { prompt, requiredSlot, signal, onChange }: {
    prompt: string;
    requiredSlot: number | null;
    signal: AbortSignal;
    onChange: () => void;
  },
): Promise<Slot> {
  return new Promise<Slot>((resolve, reject) => {
    const onAbort = () => {
      const index = queue.indexOf(waiter);
      if (index >= 0) queue.splice(index, 1);
      onChange();
      reject(new Error("Cannot wait for a slot: the client disconnected"));
    };
    const waiter: Waiter = {
      prompt,
      requiredSlot,
      resolve(slot) {
        signal.removeEventListener("abort", onAbort);
        resolve(slot);
      },
      reject(reason) {
        signal.removeEventListener("abort", onAbort);
        reject(reason);
      },
    };
    queue.push(waiter);
    signal.addEventListener("abort", onAbort, { once: true });
    onChange();
  });
}

/** Reuse a slot gives a prompt (0 when the request turned cache_prompt off). */
export function reuseOf(slot: Slot, prompt: string, tokens: number, cachePrompt: boolean): number {
  return cachePrompt ? cachedTokensOf(slot.cache, prompt, tokens) : 0;
}
