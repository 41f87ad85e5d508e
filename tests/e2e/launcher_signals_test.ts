/**
 * The npm launcher's signal paths (bin/_deno.mjs runForwarding): a child ended by a signal it did not handle gives
 * the documented "interrupted" code (4), never a shell's 128 + N; when the launcher's own parent dies (npx or its
 * shell killed, even with SIGKILL) the launcher stops the benchmark, which keeps what it measured, and ends with
 * it: no launcher and no benchmark run on as orphans.
 */
import assert from "node:assert/strict";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockEngine } from "../../mock/mod.ts";
import { alive } from "./_processes.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const LAUNCHER = join(REPO, "bin", "strata-bench.mjs");
const LINUX = Deno.build.os === "linux";

/** Process ids whose command line holds `marker` (via ps). */
async function pidsWith(marker: string): Promise<number[]> {
  const output = await new Deno.Command("ps", { args: ["-eo", "pid=,args="], stderr: "null" }).output();
  return new TextDecoder().decode(output.stdout).split("\n").filter((l) => l.includes(marker))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

/** Resolves once `check` is true, polling every 100 ms; fails after `ms` naming `what`. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

Deno.test("a child killed by a signal it did not handle ends the launcher with exit 4, not 128 + N", async () => {
  const script = `import { runForwarding } from ${JSON.stringify(join(REPO, "bin", "_deno.mjs"))};\n` +
    `runForwarding("sh", ["-c", "kill -KILL $$"]);`;
  const output = await new Deno.Command("node", { args: ["--input-type=module", "-e", script], stderr: "piped" })
    .output();
  assert.equal(output.code, 4, new TextDecoder().decode(output.stderr));
  assert.equal(output.signal, null);
});

// SIGKILL of npx leaves its `sh -c strata-bench` alive: the launcher watches through that shell to npx itself.
for (const how of ["SIGKILL of the launcher's shell", "SIGTERM of npx", "SIGKILL of npx"] as const) {
  Deno.test({
    name: `${how} leaves no orphan: the launcher stops the benchmark, which keeps its rows, and both end`,
    ignore: !LINUX,
    fn: async () => {
      const engine = await startMockEngine({ timeScale: 1, decodeTps: 40 });
      const marker = `orphan-check-${crypto.randomUUID().slice(0, 8)}`;
      const out = join(REPO, "bench-results", marker);
      const load = ["load", "--url", engine.url, "--concurrency", "1", "--duration", "120", "--quiet", "--out", out];
      const line = how.endsWith("of npx")
        ? ["npx", "--no-install", "strata-bench", ...load]
        : ["sh", "-c", `node '${LAUNCHER}' "$@"; echo ended`, "sh", ...load];
      const parent = new Deno.Command(line[0]!, { args: line.slice(1), cwd: REPO, stdout: "null", stderr: "piped" })
        .spawn();
      try {
        await until(
          async () => (await pidsWith(`mod.ts load --url ${engine.url}`)).length > 0 && engine.requests.length >= 2,
          60_000,
          "the benchmark's first requests",
        );
        const running = await pidsWith(marker);
        assert.ok(running.length >= 2, `launcher and benchmark: ${running.join(", ")}`);
        parent.kill(how.startsWith("SIGTERM") ? "SIGTERM" : "SIGKILL");
        await parent.status;
        await until(
          async () => {
            for (const pid of running) if (await alive(pid)) return false;
            return true;
          },
          30_000,
          "the end of every launcher and benchmark process",
        );
        const files = (await readdir(out)).filter((f) => f.endsWith(".jsonl"));
        assert.equal(files.length, 1, "the benchmark kept what it measured");
      } finally {
        await parent.stderr.cancel().catch(() => {});
        for (const pid of await pidsWith(marker)) {
          try {
            Deno.kill(pid, "SIGKILL");
          } catch { /* ended */ }
        }
        await engine.close();
        await rm(out, { recursive: true, force: true });
      }
    },
  });
}
