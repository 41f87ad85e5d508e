import assert from "node:assert/strict";
import { hostTarget, RELEASE_TARGETS, selectTargets } from "../../../release/_targets.ts";

Deno.test("the release covers linux x64/arm64, macOS x64/arm64 and Windows x64 with each compiler's names", () => {
  assert.deepEqual(RELEASE_TARGETS.map((t) => t.name), [
    "linux-x64",
    "linux-arm64",
    "darwin-x64",
    "darwin-arm64",
    "windows-x64",
  ]);
  const windows = RELEASE_TARGETS.find((t) => t.name === "windows-x64")!;
  assert.equal(windows.denoTriple, "x86_64-pc-windows-msvc");
  assert.equal(windows.bunTarget, "bun-windows-x64");
  assert.equal(windows.exeSuffix, ".exe");
});

Deno.test("the host target follows node:os names, and an unsupported host has none", () => {
  assert.equal(hostTarget("linux", "arm64")?.denoTriple, "aarch64-unknown-linux-gnu");
  assert.equal(hostTarget("win32", "x64")?.name, "windows-x64");
  assert.equal(hostTarget("win32", "arm64"), null);
  assert.equal(hostTarget("freebsd", "x64"), null);
});

Deno.test("selected targets expand all and host, drop duplicates, keep release order, and refuse unknown names", () => {
  const host = hostTarget("darwin", "arm64");
  assert.deepEqual(selectTargets(["host", "linux-x64", "darwin-arm64"], host).map((t) => t.name), [
    "linux-x64",
    "darwin-arm64",
  ]);
  assert.equal(selectTargets(["all"], host).length, 5);
  assert.throws(() => selectTargets(["linux-riscv"], host), {
    name: "RangeError",
    message: /"linux-riscv".*linux-x64/,
  });
  assert.throws(() => selectTargets(["host"], null), RangeError);
});
