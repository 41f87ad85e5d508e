/** The one test every part makes of a parsed JSON value before it reads a field of it. */

/** Whether a parsed JSON value is an object (not null, not an array); `V` is what its values are taken to be. */
export function isJsonObject<V = unknown>(value: unknown): value is Record<string, V> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
