/** Hostile text on a page: bidirectional and other invisible controls are shown as their code, never obeyed. */
import assert from "node:assert/strict";
import { visibleText } from "../../site/web/visible.js";

Deno.test("U+202E, zero-width and control characters are shown, not obeyed; tab, newline and text stay", () => {
  assert.equal(visibleText("notes \u202Etxt.exe"), "notes <U+202E>txt.exe");
  assert.equal(visibleText("a\u200Bb\u2066c\u2069\uFEFF\u0007"), "a<U+200B>b<U+2066>c<U+2069><U+FEFF><U+0007>");
  assert.equal(visibleText("tab\there\nnext line, é, 模型"), "tab\there\nnext line, é, 模型");
});

Deno.test("look-alike letters are shown by their code: a Cyrillic letter in a Latin word, fullwidth and math forms", () => {
  // "Qwеn" with U+0435 CYRILLIC SMALL LETTER IE: it must not read as the real name.
  assert.equal(visibleText("Qw\u0435n/Qwen3-8B"), "Qw<U+0435>n/Qwen3-8B");
  assert.notEqual(visibleText("Qw\u0435n"), visibleText("Qwen"));
  assert.equal(visibleText("L\u03bfcal \u03b1lpha"), "L<U+03BF>cal <U+03B1>lpha", "Greek in Latin words");
  assert.equal(visibleText("\uff31wen 8\uff22"), "<U+FF31>wen 8<U+FF22>", "fullwidth Latin");
  assert.equal(visibleText("\u{1d410}wen"), "<U+1D410>wen", "mathematical bold Q");
  // A word wholly in one script is text, not a look-alike: Russian and Greek names stay as written.
  assert.equal(visibleText("Модель GigaChat, μ-law"), "Модель GigaChat, μ-law");
});
