/**
 * Growable typed columns in fixed-size chunks: appending never copies what is stored (a doubling array would
 * briefly hold the old and the new buffer), a chunk is allocated only when the previous one is full (or, the first,
 * by `reserve`), and reading entry i is two shifts. The operating system commits a chunk's pages as they are
 * written, so a short run's last, mostly empty chunk costs little resident memory.
 */

type TypedArray = Float64Array | Uint32Array | Uint16Array | Uint8Array;
type TypedArrayConstructor<T extends TypedArray> = new (length: number) => T;

/** Each chunk holds 2^SHIFT entries. */
const SHIFT = 14;
const MASK = (1 << SHIFT) - 1;

/** An append-only column of numbers of one typed-array kind. */
export class Column<T extends TypedArray> {
  #make: TypedArrayConstructor<T>;
  #chunks: T[] = [];
  #length = 0;

  constructor(make: TypedArrayConstructor<T>) {
    this.#make = make;
  }

  get length(): number {
    return this.#length;
  }

  /** Bytes of typed storage allocated (used or not). */
  get allocatedBytes(): number {
    let total = 0;
    for (const c of this.#chunks) total += c.byteLength;
    return total;
  }

  /**
   * Allocates the first chunk now if none is: a load test reserves its columns before the schedule starts, where
   * allocating the ~20 first chunks (about 1.8 MiB, zeroed) at the first measured row took ~5 ms (measured).
   */
  reserve(): void {
    if (this.#chunks.length === 0) this.#chunks.push(new this.#make(1 << SHIFT));
  }

  push(value: number): void {
    const c = this.#length >> SHIFT;
    if (c === this.#chunks.length) this.#chunks.push(new this.#make(1 << SHIFT));
    (this.#chunks[c] as T)[this.#length & MASK] = value;
    this.#length++;
  }

  /** The value at `i` (0 <= i < length). */
  at(i: number): number {
    return (this.#chunks[i >> SHIFT] as T)[i & MASK] as number;
  }

  /** Calls `visit(value, i)` for every stored value in order. */
  forEach(visit: (value: number, i: number) => void): void {
    for (let i = 0; i < this.#length; i++) visit((this.#chunks[i >> SHIFT] as T)[i & MASK] as number, i);
  }
}
