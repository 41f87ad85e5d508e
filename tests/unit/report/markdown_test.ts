import assert from "node:assert/strict";
import { markdownLine, markdownText } from "../../../report/_markdown.ts";

Deno.test("markdownText escapes every inline construct an engine string could open", () => {
  const hostile = "**bold** _em_ `code` [link](http://x) ![img](y) <img src=x> &#x202e; | pipe ~~del~~ $math$ #tag";
  const out = markdownText(hostile);
  for (const c of "*_`[]!<>&|~$#") {
    const raw = new RegExp(`(^|[^\\\\])\\${c}`);
    assert.ok(!raw.test(out), `an unescaped ${c} in ${out}`);
  }
});

Deno.test("markdownText escapes terminal controls (rendered as a visible \\uXXXX) and collapses line breaks", () => {
  const out = markdownText("a\x1b]0;t\x07\nb\u202Ec");
  assert.equal(out, "a\\\\u001b\\]0;t\\\\u0007 b\\\\u202ec");
});

Deno.test("markdownLine escapes a block marker that would start a list, a heading or an ordered item", () => {
  assert.equal(markdownLine("- not a list"), "\\- not a list");
  assert.equal(markdownLine("+ x"), "\\+ x");
  assert.equal(markdownLine("=== x"), "\\=== x");
  assert.equal(markdownLine("12. x"), "12\\. x");
  assert.equal(markdownLine("# x"), "\\# x");
  assert.equal(markdownLine("902.0 tok/s"), "902.0 tok/s");
});
