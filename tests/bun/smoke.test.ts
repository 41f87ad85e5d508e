/**
 * Bun smoke suite: the parts a Bun user touches, run by `bun test tests/bun`. The fixture bundle verifies, the
 * scoring rules give the same answers, and the CLI runs the whole protocol under Bun against the scripted engine
 * (itself served by Bun in this process) and re-reads the result with `report`.
 */
import { afterAll, beforeAll, describe, test } from "bun:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadBundle, type LoadedBundle, STANDARD_V1_CORPUS_SHA256, verifyBundle } from "../../fixtures/mod.ts";
import { type MockEngine, startMockEngine } from "../../mock/mod.ts";
import { runCommand, runtimeName, sys } from "../../runtime/mod.ts";
import { percentileType7 } from "../../score/mod.ts";
import { scoreSanity } from "../../score/sanity.ts";
import { answered, toolCalled } from "../unit/score/_helpers.ts";
import { validateFolder } from "../e2e/_validate_folder.ts";

const MOD = fileURLToPath(new URL("../../mod.ts", import.meta.url));
const RUN_TIMEOUT_MS = 60_000;

function bunPath(): string {
  const path = sys.execPath();
  if (!path.ok) throw new Error(`Cannot find the bun executable: ${path.reason}`);
  return path.value;
}

/** `bun mod.ts ...` as a person runs it. */
async function cli(args: string[]) {
  const result = await runCommand(bunPath(), [MOD, ...args], { timeoutMs: RUN_TIMEOUT_MS });
  if (!result.ok) throw new Error(`Cannot run bun mod.ts: ${result.reason}`);
  return result.value;
}

test("the suite runs under Bun, not Deno", () => {
  assert.equal(runtimeName().name, "bun");
});

describe("fixtures", () => {
  test("the committed bundle matches its manifest and the corpus hash this version pins", async () => {
    const result = await verifyBundle();
    assert.deepEqual(result.problems, []);
    assert.equal(result.corpusSha256, STANDARD_V1_CORPUS_SHA256);
  });

  test("the loaded bundle holds the 22 required and 12 optional requests in schedule order", async () => {
    const bundle = await loadBundle();
    assert.equal(bundle.fixtures.length, 34);
    assert.equal(bundle.fixtures[0]?.id, "warmup");
    assert.equal(bundle.fixtures.at(-1)?.id, "concurrency-r3-c4");
  });

  test("fixtures verify through the CLI exits 0", async () => {
    const out = await cli(["fixtures", "verify"]);
    assert.equal(out.code, 0, out.stdout + out.stderr);
    assert.match(out.stdout, /^ok: every file/);
  });
});

describe("scoring", () => {
  test("sanity checks of the real bundle pass the exact answer and fail a near miss", async () => {
    const bundle = await loadBundle();
    const i2 = bundle.fixtures.find((f) => f.id === "sanity-I2")!;
    assert.equal(scoreSanity(i2, "completed", answered("[-4,1,2,9]")).passed, true);
    assert.equal(scoreSanity(i2, "completed", answered("[-4, 1, 2, 9.0]")).passed, false);
    const t1 = bundle.fixtures.find((f) => f.id === "sanity-T1")!;
    assert.equal(scoreSanity(t1, "completed", toolCalled("lookup_record", '{"id":"A-17"}')).passed, true);
    assert.equal(scoreSanity(t1, "completed", answered('{"id":"A-17"}')).passed, false);
  });

  test("type 7 percentiles match values worked by hand", () => {
    // n = 4: h = 3p; p50 -> 2 + 0.5 * (3 - 2), p90 -> 3 + 0.7 * (4 - 3).
    assert.equal(percentileType7([1, 2, 3, 4], 0.5), 2.5);
    assert.ok(Math.abs(percentileType7([1, 2, 3, 4], 0.9) - 3.7) < 1e-12);
  });
});

describe("the protocol under Bun", () => {
  let engine: MockEngine;
  let bundle: LoadedBundle;
  let out: string;
  let folder = "";

  beforeAll(async () => {
    bundle = await loadBundle();
    engine = await startMockEngine({
      timeScale: 0,
      tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
    });
    out = await mkdtemp(join(tmpdir(), "strata-bun-"));
  });

  afterAll(async () => {
    await engine.close();
    await rm(out, { recursive: true, force: true });
  });

  test(
    "run against the scripted engine sends all 22 requests and writes a result the strict validator accepts",
    async () => {
      const run = await cli(["run", "--url", engine.url, "--simulated", "--out", out]);
      assert.equal(run.code, 1, `a simulated run is nonconforming (exit 1)\n${run.stderr}`);
      assert.match(run.stderr, /\[22\/22\] sanity-T4 \.\.\./);
      assert.equal(engine.requests.length, 22);
      folder = run.stdout.trim().split("\n").at(-1)!;
      assert.ok(folder.startsWith(out), folder);
      assert.deepEqual(await validateFolder(folder, bundle), []);
      const result = JSON.parse(await readFile(join(folder, "results.json"), "utf8"));
      assert.equal(result.extensions.simulated_engine, true);
      assert.match(result.software.runner_commit, /^[0-9a-f]{40}$/, "the commit is read from .git under Bun too");
      assert.equal(result.software.build_kind, "source");
    },
    RUN_TIMEOUT_MS,
  );

  test("report re-reads the saved result under Bun", async () => {
    assert.notEqual(folder, "", "the run test wrote a folder");
    const result = JSON.parse(await readFile(join(folder, "results.json"), "utf8"));
    const report = await cli(["report", folder]);
    assert.match(report.stdout, new RegExp(result.run.id));
    assert.doesNotMatch(report.stdout + report.stderr, /invalid/i);
  }, RUN_TIMEOUT_MS);
});
