/** What a result folder publishes about the machine it was made on, checked on a real `mod.ts run`. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { loadBundle } from "../../fixtures/mod.ts";
import { startMockEngine } from "../../mock/mod.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("run --out with an absolute folder publishes no absolute path of this machine in any file", async () => {
  const bundle = await loadBundle();
  const engine = await startMockEngine({
    timeScale: 0,
    tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
  });
  const cwd = await Deno.makeTempDir({ prefix: "strata-e2e-" });
  const out = join(cwd, "abs-out");
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--allow-net=127.0.0.1",
        "--allow-read",
        `--allow-write=${cwd}`,
        "--allow-env",
        "--allow-sys",
        join(REPO, "mod.ts"),
        "run",
        "--url",
        engine.url,
        "--simulated",
        "--out",
        out,
      ],
      cwd,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 1, stderr);
    const folder = new TextDecoder().decode(output.stdout).trim().split("\n").at(-1)!;
    assert.ok(folder.startsWith(out), folder);
    const result = JSON.parse(await Deno.readTextFile(join(folder, "results.json")));
    assert.match(result.run.command, /--out <abs-path>\/abs-out( |$)/);
    assert.match(result.run.command, /--url http:\/\/127\.0\.0\.1:\d+/);
    for await (const entry of Deno.readDir(folder)) {
      const text = await Deno.readTextFile(join(folder, entry.name));
      for (const leak of [cwd, REPO.replace(/\/$/, "")]) {
        assert.ok(!text.includes(leak), `${entry.name} contains ${leak}`);
      }
    }
  } finally {
    await engine.close();
    await Deno.remove(cwd, { recursive: true });
  }
});
