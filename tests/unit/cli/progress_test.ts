import assert from "node:assert/strict";
import { errorLine, formatBytes, formatDuration, openProgress, plainText } from "../../../cli/_progress.ts";

Deno.test("durations read as a person says them", () => {
  assert.equal(formatDuration(0.04), "0.0 s");
  assert.equal(formatDuration(12.34), "12.3 s");
  assert.equal(formatDuration(245), "4 min 05 s");
  assert.equal(formatDuration(3725), "1 h 02 min");
  assert.equal(formatDuration(Number.NaN), "-");
  assert.equal(formatBytes(812_300_000), "812.3 MB");
  assert.equal(formatBytes(44_010_000_000), "44.01 GB");
});

Deno.test("an error message is shown as one line: its first line, and of a long one the first sentence", () => {
  assert.equal(errorLine("HTTP 503: Loading model\n<html>...</html>"), "HTTP 503: Loading model");
  const long = `the request exceeds the available context size. ${"Details follow. ".repeat(20)}`;
  assert.equal(errorLine(long), "the request exceeds the available context size.");
  const noStop = "x".repeat(400);
  assert.equal([...errorLine(noStop)].length, 160);
  assert.ok(errorLine(noStop).endsWith("…"));
});

Deno.test("quiet progress prints nothing and renders nothing", () => {
  const progress = openProgress("quiet");
  let rendered = 0;
  progress.status(() => {
    rendered++;
    return [{ text: "x" }];
  });
  progress.line("a line that must not appear");
  progress.refresh();
  progress.stop();
  assert.equal(rendered, 0);
  assert.equal(plainText([{ text: "a" }, { text: "b", style: "bold" }]), "ab");
});
