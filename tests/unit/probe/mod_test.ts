import assert from "node:assert/strict";
import { defaultProbeDeps } from "../../../probe/mod.ts";
import { MAX_COMMAND_OUTPUT_BYTES } from "../../../runtime/mod.ts";

Deno.test("the probe refuses a tool's output cut at the cap, saying how much was cut, and passes a normal one", async () => {
  const deps = defaultProbeDeps();
  const flood = await deps.runCommand("sh", ["-c", `head -c ${MAX_COMMAND_OUTPUT_BYTES + 10} /dev/zero`]);
  assert.equal(flood.ok, false);
  assert.match(flood.ok ? "" : flood.reason, /^sh printed 10 bytes past the 4194304-byte cap of a stream; its output/);
  const fine = await deps.runCommand("sh", ["-c", "echo ok"]);
  assert.deepEqual(fine, { ok: true, value: { code: 0, stdout: "ok\n", stderr: "" } });
});
