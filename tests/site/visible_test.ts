/** Hostile text on a page: bidirectional and other invisible controls are shown as their code, never obeyed. */
import assert from "node:assert/strict";
import { visibleText } from "../../site/web/visible.js";

Deno.test("U+202E, zero-width and control characters are shown, not obeyed; tab, newline and text stay", () => {
  assert.equal(visibleText("notes \u202Etxt.exe"), "notes <U+202E>txt.exe");
  assert.equal(visibleText("a\u200Bb\u2066c\u2069\uFEFF\u0007"), "a<U+200B>b<U+2066>c<U+2069><U+FEFF><U+0007>");
  assert.equal(visibleText("tab\there\nnext line, é, 模型"), "tab\there\nnext line, é, 模型");
});
