/**
 * run, load and compare in a real pseudo-terminal (tmux), as a person sees them: while a slow scripted request
 * streams, the screen shows the live status line (request i/22 with its id, elapsed time, TTFT and deltas; load's
 * phase, counts and rates; compare's point, round and side); the final output replaces it, never mixed with it;
 * Ctrl-C is honoured. Piped, the same commands write plain lines without a single escape code.
 */
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadBundle } from "../../fixtures/mod.ts";
import { type MockEngine, type MockEngineOptions, startMockEngine } from "../../mock/mod.ts";
import { openTerminal, tmuxAvailable } from "./_tmux.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const DENO = join(REPO, "node_modules", ".bin", "deno");

async function engine(options: MockEngineOptions): Promise<MockEngine> {
  const bundle = await loadBundle();
  return await startMockEngine({
    tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
    ...options,
  });
}

/** The command line a person types for strata-bench with the load set and a private output folder. */
function command(set: "run" | "load", out: string, args: string): string {
  return `${DENO} run -q -P=${set} --allow-write=${out} --no-prompt ${join(REPO, "mod.ts")} ${args}; echo "EXIT=$?"`;
}

Deno.test("tmux is there for the terminal tests (CI installs it)", async () => {
  assert.ok(await tmuxAvailable(), "install tmux (apt-get install -y tmux); .ci/run does it when missing");
});

Deno.test("run in a terminal: the streaming request's live line, then Ctrl-C cancels it and the result is written", async () => {
  const out = await Deno.makeTempDir({ prefix: "strata-tty-run-" });
  // The first performance request sends 7 tokens, then stalls: its line must show them while it streams.
  const mock = await engine({
    timeScale: 0,
    script: { "performance-short-r1": { fault: { kind: "stall", afterTokens: 7, ms: 120_000 } } },
  });
  const terminal = await openTerminal(REPO);
  try {
    await terminal.type(command("run", out, `run --url ${mock.url} --simulated --out ${out}`));
    const live = await terminal.waitFor(
      /\[2\/22\] performance-short-r1 · [\d.]+ s · TTFT [\d.]+ s · [1-9]\d* deltas \(not tokens\)/,
      60_000,
    );
    assert.match(live, /\[1\/22\] warmup \.\.\. truncated 128 tok/, "the previous result stays above the live line");
    await terminal.key("C-c");
    await terminal.waitFor(/EXIT=\d+/, 60_000);
    const done = await terminal.history();
    assert.match(done, /SIGINT: cancelling the request in flight/);
    assert.match(done, /\[2\/22\] performance-short-r1 \.\.\. failed \(the run was cancelled/);
    assert.match(done, /\[3-22\/22\] 20 requests skipped/, "the skipped requests are one line");
    assert.match(done, /EXIT=1/);
    assert.doesNotMatch(done, /TTFT waiting|deltas \(not tokens\)\s*$/m, "no status line is left behind");
  } finally {
    await terminal.close();
    await mock.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("load in a terminal: phase, elapsed of the plan, counts, rates and TTFT p50 redrawn in place", async () => {
  const out = await Deno.makeTempDir({ prefix: "strata-tty-load-" });
  const mock = await engine({ timeScale: 1, decodeTps: 40, slots: 4 });
  const terminal = await openTerminal(REPO, { columns: 150 });
  try {
    await terminal.type(
      command("load", out, `load --url ${mock.url} --concurrency 2 --duration 4 --no-headroom-check --out ${out}`),
    );
    const live = await terminal.waitFor(
      /measure [\d.]+ s of 4\.0 s · \d+ sent, \d+ ok, 0 failed, \d in flight · [\d.]+ req\/s, \d+ tok\/s · TTFT p50 \d+ ms \(all \d+\)/,
      60_000,
    );
    assert.equal(
      live.match(/measure [\d.]+ s of 4\.0 s/g)?.length,
      1,
      "one status line, redrawn, not a new line each time",
    );
    const color = await terminal.screen(true);
    assert.ok(color.includes("\x1b[1mmeasure"), "bold on a terminal without NO_COLOR");
    await terminal.waitFor(/EXIT=\d+/, 60_000);
    const done = await terminal.history();
    assert.match(done, /EXIT=0/);
    assert.match(done, /load: wrote \d+ JSONL lines to /);
    assert.doesNotMatch(done, /measure [\d.]+ s of 4\.0 s/, "the status line is gone once the summary is printed");
    const shown = await terminal.screen(true);
    // deno-lint-ignore no-control-regex
    assert.match(shown, /load: \x1b\[32mok\x1b\[(0|39)m/, JSON.stringify(shown.slice(-800)));
  } finally {
    await terminal.close();
    await mock.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("load with NO_COLOR: the line still redraws in place, without a colour code", async () => {
  const out = await Deno.makeTempDir({ prefix: "strata-tty-nocolor-" });
  const mock = await engine({ timeScale: 1, decodeTps: 40, slots: 4 });
  const terminal = await openTerminal(REPO, { columns: 150, env: { NO_COLOR: "1" } });
  try {
    await terminal.type(
      command("load", out, `load --url ${mock.url} --concurrency 2 --duration 3 --no-headroom-check --out ${out}`),
    );
    await terminal.waitFor(/measure [\d.]+ s of 3\.0 s · /, 60_000);
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(await terminal.screen(true), /\x1b\[(1|2|3\d)m/);
    await terminal.key("C-c");
    const done = await terminal.waitFor(/EXIT=\d+/, 60_000);
    assert.match(done, /INTERRUPTED by SIGINT: NOT A COMPLETE RESULT/);
    assert.match(done, /EXIT=4/);
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(await terminal.screen(true), /\x1b\[3\dm/, "no colour in the ending either");
  } finally {
    await terminal.close();
    await mock.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("compare in a terminal: measurement i/n, point, round and side, then the verdict alone", async () => {
  const out = await Deno.makeTempDir({ prefix: "strata-tty-compare-" });
  const baseline = await engine({ timeScale: 1, decodeTps: 60, slots: 4 });
  const candidate = await engine({ timeScale: 1, decodeTps: 60, slots: 4 });
  const terminal = await openTerminal(REPO, { columns: 160 });
  try {
    await terminal.type(command(
      "load",
      out,
      `compare --baseline ${baseline.url} --candidate ${candidate.url} --concurrency 1 --rounds 2 --requests 2 ` +
        `--warmup-requests 0 --tolerance 0.5 --out ${out}`,
    ));
    await terminal.waitFor(/\[\d\/4\] W1@1 round \d\/2 (baseline|candidate) · measure /, 60_000);
    await terminal.waitFor(/EXIT=\d+/, 120_000);
    const done = await terminal.history();
    assert.match(done, /gate: (PASS|FAIL)/);
    assert.doesNotMatch(done, /round \d\/2 (baseline|candidate) · measure/);
  } finally {
    await terminal.close();
    await baseline.close();
    await candidate.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("piped, load writes plain lines only: not one escape code on stderr or stdout", async () => {
  const out = await Deno.makeTempDir({ prefix: "strata-pipe-" });
  const mock = await engine({ timeScale: 1, decodeTps: 200, slots: 4 });
  try {
    const output = await new Deno.Command(DENO, {
      args: [
        "run",
        "-q",
        "-P=load",
        `--allow-write=${out}`,
        "--no-prompt",
        join(REPO, "mod.ts"),
        "load",
        "--url",
        mock.url,
        "--concurrency",
        "2",
        "--requests",
        "6",
        "--no-headroom-check",
        "--out",
        out,
      ],
      env: { TERM: "xterm-256color" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout), stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    assert.ok(!stdout.includes("\x1b") && !stderr.includes("\x1b") && !stderr.includes("\r"), JSON.stringify(stderr));
    assert.match(stderr, /^load: writing .*\.jsonl$/m);
    assert.match(stdout, /== http:\/\/127\.0\.0\.1:\d+/);
  } finally {
    await mock.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("Ctrl-C under npx: the ending says exit 4, and the launcher says why the shell sees 130", async () => {
  const out = await Deno.makeTempDir({ prefix: "strata-tty-npx-" });
  const terminal = await openTerminal(REPO, { columns: 150 });
  try {
    await terminal.type(`npx strata-bench load --self-check --concurrency 1 --duration 30 --out ${out}`);
    await terminal.waitFor(/measure [\d.]+ s of 30\.0 s/, 60_000);
    await terminal.key("C-c");
    await terminal.waitFor(/reports 130 to the shell/, 60_000);
    await terminal.type('echo "CODE=$?"');
    const done = await terminal.waitFor(/CODE=\d+/, 30_000);
    assert.match(done, /load: INTERRUPTED \(exit 4\)/);
    assert.match(done, /strata-bench: ended with exit 4; npm \(exec\) reports 130 to the shell after Ctrl-C/);
    assert.match(done, /CODE=130/, "what the launcher says the shell sees is what it sees");
  } finally {
    await terminal.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("kill -TERM to npx: the launcher says its ending follows the prompt, and how to keep them in order", async () => {
  const out = await Deno.makeTempDir({ prefix: "strata-tty-npx-term-" });
  const terminal = await openTerminal(REPO, { columns: 150 });
  try {
    await terminal.type(`npx strata-bench load --self-check --concurrency 1 --duration 30 --out ${out}`);
    await terminal.waitFor(/measure [\d.]+ s of 30\.0 s/, 60_000);
    // The npm process of this very command: its command line names this test's own --out folder.
    const found = await new Deno.Command("pgrep", {
      args: ["-f", `^npm exec strata-bench .*--out ${out}`],
      stdout: "piped",
    })
      .output();
    const pid = Number(new TextDecoder().decode(found.stdout).trim().split("\n")[0]);
    assert.ok(Number.isInteger(pid) && pid > 1, "the npm process was found");
    Deno.kill(pid, "SIGTERM");
    await terminal.waitFor(/INTERRUPTED \(exit 4\)[\s\S]*\.jsonl\s*$/, 60_000);
    // The launcher's line, wrapped by the terminal's width: compared without white space.
    const flat = (await terminal.history()).replace(/\s+/g, "");
    const said = "strata-bench: npm (exec) ended before the benchmark did; its ending follows your shell's prompt. " +
      "To keep them in order, send SIGTERM to strata-bench itself (pid";
    assert.ok(flat.includes(said.replace(/\s+/g, "")), flat.slice(-3000));
    const lines = (await readdir(out)).filter((n) => n.endsWith(".jsonl"));
    assert.equal(lines.length, 1, "what was measured is kept");
  } finally {
    await terminal.close();
    await Deno.remove(out, { recursive: true });
  }
});
