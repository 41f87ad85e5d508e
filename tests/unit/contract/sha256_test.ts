import assert from "node:assert/strict";
import { sha256Hex, sha256HexWeb } from "../../../contract/mod.ts";

const ABC_SHA256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

Deno.test("sha256Hex gives the FIPS 180-2 digest of 'abc' in lowercase hex, for text and for bytes", () => {
  assert.equal(sha256Hex("abc"), ABC_SHA256);
  assert.equal(sha256Hex(new TextEncoder().encode("abc")), ABC_SHA256);
});

Deno.test("sha256HexWeb (crypto.subtle) gives the same digest of 'abc' as sha256Hex", async () => {
  assert.equal(await sha256HexWeb("abc"), ABC_SHA256);
  assert.equal(await sha256HexWeb(new TextEncoder().encode("abc")), ABC_SHA256);
});
