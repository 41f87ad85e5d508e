/** `mod.ts run` as a person runs it: a child deno process with narrow permissions, in a fresh folder. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { loadBundle } from "../../fixtures/mod.ts";
import { startMockEngine } from "../../mock/mod.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const DENO = Deno.execPath();

function permissionFlags(writable: string[]): string[] {
  return [
    "--no-prompt",
    "--allow-net=127.0.0.1,localhost,[::1]",
    "--allow-read",
    `--allow-write=${writable.join(",")}`,
    "--allow-run=nvidia-smi,rocm-smi,amd-smi,sysctl",
    // Exactly what the probes and the sanitizer read; anything refused degrades to null with a reason.
    "--allow-env=HOME,XDG_CACHE_HOME,LOCALAPPDATA,ROCM_PATH,NO_COLOR",
    "--allow-sys=hostname,osRelease,systemMemoryInfo,cpus,userInfo,homedir,uid",
  ];
}

async function strataBench(cwd: string, writable: string[], args: string[]) {
  const output = await new Deno.Command(DENO, {
    args: ["run", ...permissionFlags(writable), join(REPO, "mod.ts"), ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

Deno.test("run against the scripted engine writes a labelled simulated result under ./bench-results, and report reads it", async () => {
  const bundle = await loadBundle();
  const engine = await startMockEngine({
    timeScale: 0,
    tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
  });
  const cwd = await Deno.makeTempDir({ prefix: "strata-e2e-" });
  try {
    const run = await strataBench(cwd, [cwd], ["run", "--url", engine.url, "--simulated", "--track-notes", "e2e"]);
    assert.equal(run.code, 1, `a simulated run is nonconforming (exit 1)\n${run.stderr}`);
    assert.match(run.stderr, /\[1\/22\] warmup \.\.\./);
    assert.match(run.stderr, /\[22\/22\] sanity-T4 \.\.\./);
    assert.doesNotMatch(run.stderr, /fails strict validation|generic reason/);
    const folder = run.stdout.trim().split("\n").at(-1)!;
    assert.ok(folder.startsWith(join(cwd, "bench-results")), folder);
    assert.match(folder, /\/\d{4}-\d{2}-\d{2}-standard-[a-z0-9-]+-\d{8}T\d{6}Z-[a-z0-9]{6}$/);
    const names: string[] = [];
    for await (const entry of Deno.readDir(folder)) names.push(entry.name);
    assert.deepEqual(names.sort(), [
      "README.md",
      "caps.svg",
      "config.json",
      "latency.svg",
      "outputs.jsonl",
      "rates.svg",
      "results.json",
      "template.jinja",
      "template_check.json",
    ]);
    const result = JSON.parse(await Deno.readTextFile(join(folder, "results.json")));
    assert.equal(result.run.status, "nonconforming");
    assert.equal(result.extensions.simulated_engine, true);
    assert.equal(engine.requests.length, 22);

    const report = await strataBench(cwd, [cwd], ["report", folder]);
    assert.match(report.stdout, new RegExp(result.run.id));
    assert.doesNotMatch(report.stdout + report.stderr, /invalid|problem/i);
  } finally {
    await engine.close();
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("run refuses workload-changing flags and unknown flags with the usage exit code, sending nothing", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "strata-e2e-" });
  try {
    const refused = await strataBench(cwd, [cwd], ["run", "--repeat", "5"]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--repeat: it would change the protocol's workload/);
    const unknown = await strataBench(cwd, [cwd], ["run", "--fast"]);
    assert.equal(unknown.code, 2);
    const profile = await strataBench(cwd, [cwd], ["run", "--profile", "qwen"]);
    assert.equal(profile.code, 3);
    assert.match(profile.stderr, /Cannot find profile "qwen"/);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("run exits 3 when nothing answers at the URL, before any result folder exists", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "strata-e2e-" });
  try {
    const engine = await startMockEngine({ timeScale: 0 });
    const url = engine.url;
    await engine.close();
    const run = await strataBench(cwd, [cwd], ["run", "--url", url]);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /did not answer \/health/);
    const names: string[] = [];
    for await (const entry of Deno.readDir(cwd)) names.push(entry.name);
    assert.deepEqual(names, []);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("SIGINT during a request cancels it, skips the rest, and still writes a valid partial result", async () => {
  const bundle = await loadBundle();
  const engine = await startMockEngine({
    timeScale: 0,
    tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
    script: { "performance-prompt-4k-r1": { fault: { kind: "stall", afterTokens: 1, ms: 20_000 } } },
  });
  const cwd = await Deno.makeTempDir({ prefix: "strata-e2e-" });
  try {
    const child = new Deno.Command(DENO, {
      args: ["run", ...permissionFlags([cwd]), join(REPO, "mod.ts"), "run", "--url", engine.url, "--simulated"],
      cwd,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    await engine.waitFor((e) => e.requests.some((r) => r.requestId === "performance-prompt-4k-r1"), 30_000);
    child.kill("SIGINT");
    const output = await child.output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 1, stderr);
    assert.match(stderr, /SIGINT: cancelling/);
    const folder = stdout.trim().split("\n").at(-1)!;
    const result = JSON.parse(await Deno.readTextFile(join(folder, "results.json")));
    const byId = new Map(result.requests.map((r: { id: string }) => [r.id, r]));
    assert.equal((byId.get("performance-prompt-4k-r1") as { error: { kind: string } }).error.kind, "cancelled");
    assert.equal(result.request_counts.sanity.skipped, 12);
    assert.equal(result.requests.length, 22);
    const lines = (await Deno.readTextFile(join(folder, "outputs.jsonl"))).trim().split("\n");
    assert.equal(lines.length, 22);
    const report = await strataBench(cwd, [cwd], ["report", folder]);
    assert.doesNotMatch(report.stdout + report.stderr, /invalid|problem/i);
  } finally {
    await engine.close();
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("run against a plain web server stops after the warm-up and says so once: no HTML, one skipped line", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "strata-e2e-" });
  const page = `<!DOCTYPE html><html><body>${"<p>Not Found</p>".repeat(200)}</body></html>`;
  const web = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (request) =>
      new URL(request.url).pathname === "/health"
        ? new Response("ok")
        : new Response(page, { status: 404, headers: { "content-type": "text/html" } }),
  );
  try {
    const run = await strataBench(cwd, [cwd], ["run", "--url", `http://127.0.0.1:${web.addr.port}`]);
    assert.equal(run.code, 1, run.stderr);
    const lines = run.stderr.trim().split("\n");
    assert.ok(lines.length <= 6, `a handful of lines, not one per request:\n${run.stderr}`);
    assert.ok(!run.stderr.includes("<") && !run.stdout.includes("<p>"), "the page's bytes are never printed");
    assert.match(run.stderr, /\[1\/22\] warmup \.\.\. failed \(.*HTTP 404.*markup \(HTML\) body of \d+ bytes/);
    assert.match(run.stderr, /^\[2-22\/22\] 21 requests skipped \(the warm-up request failed/m);
    assert.match(run.stderr, /^run: stopped after the warm-up, which got no event stream .*OpenAI-compatible/m);
  } finally {
    await web.shutdown();
    await Deno.remove(cwd, { recursive: true });
  }
});
