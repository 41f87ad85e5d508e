/**
 * SHA-256 of small in-memory data as lowercase hex: the one helper every part uses for texts, fixture files,
 * artifacts and workload files. A leaf module (imports nothing of this project), so any part may import it
 * directly, as it does report/contract.ts. Multi-GB files are hashed by probe/hash_file.ts (streaming) instead.
 */
import { createHash } from "node:crypto";

/** Lowercase hex SHA-256 of bytes, or of a string's UTF-8 bytes (node:crypto, synchronous). */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Lowercase hex SHA-256 of bytes, or of a string's UTF-8 bytes, by Web Crypto (crypto.subtle). */
export async function sha256HexWeb(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
