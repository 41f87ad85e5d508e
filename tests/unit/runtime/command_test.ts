/**
 * runCommand's two bounds against a hostile tool: a program that hangs through a child (a shell script whose
 * `sleep` keeps the pipes open) is killed at its deadline and the call returns while that child still lives (the
 * runtime's output() waited on it); a program that floods keeps MAX_COMMAND_OUTPUT_BYTES per stream and counts the
 * rest. The stand-ins are `sh` scripts, as a fake tool first on PATH would be.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MAX_COMMAND_OUTPUT_BYTES, runCommand } from "../../../runtime/_command.ts";

/** Whether a process lives (kill -0; /proc would need every permission). */
async function alive(pid: number): Promise<boolean> {
  return (await new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" }).output()).code === 0;
}

Deno.test("a tool that hangs through a child is killed at its deadline; the call does not wait for the child", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-command-" });
  const pidFile = join(dir, "child.pid");
  let child: number | null = null;
  try {
    const outcome = await runCommand("sh", ["-c", `sleep 30 & echo $! > '${pidFile}'; echo started; wait`], {
      timeoutMs: 500,
    });
    child = Number((await Deno.readTextFile(pidFile)).trim());
    assert.equal(outcome.ok, false);
    assert.equal(outcome.ok ? null : outcome.kind, "timeout");
    assert.match(
      outcome.ok ? "" : outcome.reason,
      /^sh did not finish within 500 ms \(killed; its output was not used\)/,
    );
    assert.ok(await alive(child), "the call returned while the child holding the pipes still ran");
  } finally {
    if (child !== null && await alive(child)) Deno.kill(child, "SIGKILL");
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tool that floods keeps the cap per stream and says how many bytes it dropped", async () => {
  const total = MAX_COMMAND_OUTPUT_BYTES + 3_000_000;
  const outcome = await runCommand("sh", ["-c", `head -c ${total} /dev/zero | tr '\\0' x; echo oops >&2`], {
    timeoutMs: 20_000,
  });
  assert.ok(outcome.ok, outcome.ok ? "" : outcome.reason);
  assert.equal(outcome.value.stdout.length, MAX_COMMAND_OUTPUT_BYTES);
  assert.equal(outcome.value.cutBytes, total - MAX_COMMAND_OUTPUT_BYTES);
  assert.equal(outcome.value.stderr, "oops\n");
  assert.equal(outcome.value.code, 0);
});

Deno.test("a normal tool gives its output and exit code; a missing one is not_found", async () => {
  const ran = await runCommand("sh", ["-c", "echo hello; echo bye >&2; exit 3"]);
  assert.deepEqual(ran, { ok: true, value: { code: 3, stdout: "hello\n", stderr: "bye\n" } });
  const missing = await runCommand("strata-no-such-tool", []);
  assert.equal(missing.ok ? null : missing.kind, "not_found");
});
