import assert from "node:assert/strict";
import { escapeTerminalText } from "../../../runtime/_terminal_text.ts";

/** Sequences a hostile engine or result file could carry, one per kind of terminal effect. */
const ATTACKS: [string, string][] = [
  ["OSC window title", "\x1b]0;pwned\x07"],
  ["CSI erase line + carriage return", "failed\x1b[2K\rcompleted 999 tok/s"],
  ["bare carriage return", "failed\rcompleted"],
  ["C1 CSI (U+009B)", "\u009b2J"],
  ["C1 OSC (U+009D)", "\u009d0;x\u009c"],
  ["DEL", "a\x7fb"],
  ["backspace", "failed\b\b\b\b\b\bok    "],
  ["bell and NUL", "\x07\x00"],
  ["right-to-left override", "txt.\u202Eexe"],
  ["isolates and marks", "\u2066a\u2069\u200e\u200f\u061c"],
  ["line separator", "a\u2028b\u2029c"],
  ["vertical tab and form feed", "a\x0bb\x0cc"],
];

for (const [name, attack] of ATTACKS) {
  Deno.test(`escapeTerminalText leaves nothing a terminal acts on: ${name}`, () => {
    const out = escapeTerminalText(`before ${attack} after`);
    assert.equal(escapeTerminalText(out), out, JSON.stringify(out));
    assert.notEqual(escapeTerminalText(attack), attack);
    assert.ok(out.startsWith("before ") && out.endsWith(" after"));
    // Every printable character of the attack is still there, so a reader sees what was sent.
    for (const char of attack.replace(/[^\x20-\x7e]/g, "")) assert.ok(out.includes(char));
  });
}

Deno.test("escapeTerminalText keeps newlines, tabs and ordinary Unicode text", () => {
  const text = "line 1\n\tline 2 ≥ ± … Zagreb ✓ 你好 Ω\n";
  assert.equal(escapeTerminalText(text), text);
});

Deno.test("escapes use the JSON spelling, so JSON printed through the layer parses to the same value", () => {
  const value = { title: "\u202Eevil\u0085x" };
  const escaped = escapeTerminalText(JSON.stringify(value));
  assert.equal(escapeTerminalText(escaped), escaped);
  assert.deepEqual(JSON.parse(escaped), value);
  assert.equal(escapeTerminalText("\x1b[31m"), "\\u001b[31m");
});
