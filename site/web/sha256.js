// @ts-check
/** SHA-256 by Web Crypto (the browser's own implementation; Deno and Bun provide the same API). */

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * Lowercase hex SHA-256 of `bytes`.
 * @param {Uint8Array} bytes
 * @returns {Promise<string>}
 */
export async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", /** @type {BufferSource} */ (bytes)));
  let hex = "";
  for (const byte of digest) hex += HEX[byte];
  return hex;
}

/** True for a lowercase 64-character hex string. @param {unknown} value @returns {value is string} */
export function isSha256Hex(value) {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}
