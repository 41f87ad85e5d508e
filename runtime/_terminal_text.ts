/**
 * The one escaping layer for text the toolkit prints. Everything written through writeStdout/writeStderr passes
 * through `escapeTerminalText`, so text that came from an engine or a result file cannot move the cursor, set the
 * window title, erase a line or reorder what a person reads. The markdown renderer builds on the same function.
 *
 * Escaped (as `\uXXXX`, the spelling JSON uses, so JSON printed on stdout keeps its meaning): every C0 control
 * except LF and TAB (CR included: it would let a line overwrite the one before), DEL, every C1 control (U+0080 to
 * U+009F: CSI U+009B and OSC U+009D act like ESC sequences on many terminals), the bidirectional overrides,
 * embeddings, isolates and marks (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), and the Unicode line and
 * paragraph separators (U+2028, U+2029).
 */

// deno-lint-ignore no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

function hex4(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/** `text` with every character a terminal would act on written as a visible `\uXXXX` escape (LF and TAB kept). */
export function escapeTerminalText(text: string): string {
  return text.replace(UNSAFE, hex4);
}
