import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const SPAWN_MODULE = fileURLToPath(new URL("../../../runtime/_spawn.ts", import.meta.url));

/**
 * Runs a script under Deno with run permission for the Deno binary only (the way `run --profile` grants
 * llama-server alone): it starts a child that ignores SIGTERM, sends SIGTERM, then SIGKILL, and prints how the
 * child ended.
 */
async function killUnderNarrowPermissions(): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `
    import { spawnProcess } from ${JSON.stringify(SPAWN_MODULE)};
    const started = await spawnProcess(Deno.execPath(), ["eval", "Deno.addSignalListener('SIGTERM', () => {}); console.log('up'); setInterval(() => {}, 1000)"], {
      onOutput: (chunk) => { if (new TextDecoder().decode(chunk).includes("up")) ready(); },
    });
    let ready = () => {};
    const isUp = new Promise((r) => { ready = () => r(undefined); });
    if (!started.ok) throw new Error(started.reason);
    await isUp;
    const term = started.value.kill("SIGTERM");
    const kill = started.value.kill("SIGKILL");
    const exit = await started.value.exited;
    console.log(JSON.stringify({ term, kill, exit }));
  `;
  // `deno eval` would grant every permission; a script file under `deno run` gets only the flags given.
  const dir = await Deno.makeTempDir({ prefix: "strata-spawn-" });
  const file = `${dir}/narrow.ts`;
  await Deno.writeTextFile(file, script);
  let output;
  try {
    output = await new Deno.Command(Deno.execPath(), {
      args: ["run", `--allow-run=${Deno.execPath()}`, "--allow-read", "--no-prompt", file],
      stdout: "piped",
      stderr: "piped",
    }).output();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

Deno.test("a started program that ignores SIGTERM is still killed with only run permission for that program", async () => {
  const { code, stdout, stderr } = await killUnderNarrowPermissions();
  assert.equal(code, 0, stderr);
  const result = JSON.parse(stdout.trim().split("\n").pop() ?? "{}");
  assert.equal(result.term, true);
  assert.equal(result.kill, true, "the second signal must be sent, or an engine stop would wait forever");
  assert.deepEqual(result.exit, { code: null, signal: "SIGKILL" });
});
