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

const encoder = new TextEncoder();
/** Reused for the UTF-8 bytes of each text hashed: Chromium's encode() allocates and ran 10-60 times slower. */
let scratch = new Uint8Array(64 * 1024);

/**
 * Lowercase hex SHA-256 of the UTF-8 bytes of `text`. The scratch buffer is safe to reuse at once: digest() takes
 * a copy of its input before it returns (Web Crypto, "get a copy of the bytes held by the data parameter").
 * @param {string} text
 * @returns {Promise<string>}
 */
export function sha256HexOfText(text) {
  // UTF-8 takes at most 3 bytes per UTF-16 code unit.
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  const { written } = encoder.encodeInto(text, scratch);
  return sha256Hex(scratch.subarray(0, written));
}

/** True for a lowercase 64-character hex string. @param {unknown} value @returns {value is string} */
export function isSha256Hex(value) {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}
