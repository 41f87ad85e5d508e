/**
 * Small seeded PRNG shared by the load generator (arrival gaps, prompt selection, synthetic prompts) and the
 * bootstrap: xoshiro128** (Blackman and Vigna), its 128-bit state filled from the uint32 seed by splitmix32.
 * Deterministic across runtimes: only 32-bit integer arithmetic (Math.imul, >>> 0).
 */

export interface Prng {
  /** Next raw 32-bit output (uint32). */
  nextUint32(): number;
  /** Uniform float in [0, 1) with 32 bits of resolution. */
  next(): number;
  /** Uniform integer in [0, bound); @throws RangeError unless bound is a positive integer <= 2^32. */
  nextInt(bound: number): number;
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** xoshiro128** from an explicit 128-bit state (four uint32, not all zero); used directly by reference tests. */
export function xoshiro128ss(state: readonly [number, number, number, number]): Prng {
  let s0 = state[0] >>> 0, s1 = state[1] >>> 0, s2 = state[2] >>> 0, s3 = state[3] >>> 0;
  if ((s0 | s1 | s2 | s3) === 0) throw new RangeError("Cannot seed xoshiro128**: the state is all zero");
  const nextUint32 = (): number => {
    const result = Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (s1 << 9) >>> 0;
    s2 = (s2 ^ s0) >>> 0;
    s3 = (s3 ^ s1) >>> 0;
    s1 = (s1 ^ s2) >>> 0;
    s0 = (s0 ^ s3) >>> 0;
    s2 = (s2 ^ t) >>> 0;
    s3 = rotl(s3, 11);
    return result;
  };
  return {
    nextUint32,
    next: () => nextUint32() / 4294967296,
    nextInt(bound: number): number {
      if (!Number.isInteger(bound) || bound < 1 || bound > 4294967296) {
        throw new RangeError(`Cannot draw an integer: bound "${bound}" must be an integer in [1, 2^32]`);
      }
      // Rejection sampling keeps the draw unbiased.
      const limit = 4294967296 - (4294967296 % bound);
      for (;;) {
        const x = nextUint32();
        if (x < limit) return x % bound;
      }
    },
  };
}

/** splitmix32 step: a well-mixed uint32 from a counter-like state. */
function splitmix32(state: { x: number }): number {
  state.x = (state.x + 0x9e3779b9) >>> 0;
  let z = state.x;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/**
 * Seeded PRNG from a uint32 seed.
 * @throws RangeError unless the seed is an integer in [0, 2^32).
 */
export function createPrng(seed: number): Prng {
  if (!Number.isInteger(seed) || seed < 0 || seed >= 4294967296) {
    throw new RangeError(`Cannot seed the PRNG: seed "${seed}" must be an integer in [0, 4294967295]`);
  }
  const mix = { x: seed >>> 0 };
  const state: [number, number, number, number] = [splitmix32(mix), splitmix32(mix), splitmix32(mix), splitmix32(mix)];
  if ((state[0] | state[1] | state[2] | state[3]) === 0) state[0] = 1;
  return xoshiro128ss(state);
}
