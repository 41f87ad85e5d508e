import assert from "node:assert/strict";
import { ERASE_LINE, renderStatusLine } from "../../../runtime/_status_line.ts";
import { escapeTerminalText } from "../../../runtime/_terminal_text.ts";

const PLAIN = { columns: 80, color: false };

Deno.test("a status line starts by erasing the line and shows its segments in order", () => {
  const bytes = renderStatusLine([{ text: "[5/22] " }, { text: "performance-short-r2", style: "cyan" }], PLAIN);
  assert.equal(bytes, `${ERASE_LINE}[5/22] performance-short-r2`);
});

Deno.test("an engine's escape codes in a segment are escaped; the only raw codes are the toolkit's own", () => {
  const hostile = "id\x1b]0;pwned\x07\r\x1b[2Kcompleted\u009b2J\nnext";
  const bytes = renderStatusLine([{ text: hostile, style: "red" }], { columns: 200, color: true });
  const own = bytes.replace(ERASE_LINE, "").replace("\x1b[31m", "").replace("\x1b[0m", "");
  assert.equal(escapeTerminalText(own), own, JSON.stringify(own));
  assert.ok(!own.includes("\n"), "a newline would break the line that is redrawn in place");
});

Deno.test("colour codes only when colour is allowed (a terminal without NO_COLOR)", () => {
  const parts = [{ text: "measure", style: "bold" as const }, { text: " 3 s" }];
  assert.equal(renderStatusLine(parts, PLAIN), `${ERASE_LINE}measure 3 s`);
  assert.equal(renderStatusLine(parts, { columns: 80, color: true }), `${ERASE_LINE}\x1b[1mmeasure\x1b[0m 3 s`);
});

Deno.test("the line is cut one column short of the terminal, so it never wraps (a wrapped line cannot be redrawn)", () => {
  const bytes = renderStatusLine([{ text: "a".repeat(50) }, { text: "b".repeat(50), style: "dim" }], {
    columns: 60,
    color: true,
  });
  // deno-lint-ignore no-control-regex
  const visible = bytes.replace(ERASE_LINE, "").replace(/\x1b\[[0-9;]*m/g, "");
  assert.equal([...visible].length, 59);
  assert.ok(visible.endsWith("…"));
});
