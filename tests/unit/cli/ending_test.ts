import assert from "node:assert/strict";
import { type Ending, ENDING_MAX_COLUMNS, ENDING_MAX_LINES, renderEnding } from "../../../cli/_ending.ts";
import { fixFor, missingGroup, missingLabel, resultGlance } from "../../../report/mod.ts";
import { buildRealisticResult } from "../report/_realistic_result.ts";

const FOLDER = `bench-results/${"x".repeat(120)}`;

function crowded(n: number): Ending {
  return {
    status: `run: nonconforming; ${"word ".repeat(40)}`,
    numbers: Array.from({ length: n }, (_, i) => `metric ${i} ${"9.99 ".repeat(30)}`),
    problems: Array.from(
      { length: n },
      (_, i) => ({ problem: `problem ${i} ${"why ".repeat(40)}`, fix: `pass --f${i}` }),
    ),
    missing: {
      notGiven: Array.from({ length: n }, (_, i) => `--flag-${i}`),
      notMeasurable: Array.from({ length: n }, (_, i) => `value ${i} (no tool answered)`),
      failed: Array.from({ length: n }, (_, i) => `performance-short-r${i} (failed)`),
    },
    next: ["strata-bench report FOLDER (the full audit; --pr: the pull request text)"],
    folder: FOLDER,
  };
}

Deno.test("the ending fits one screen: at most 15 lines, none over 100 columns, however much there is to say", () => {
  for (const n of [0, 1, 3, 8, 40]) {
    const lines = renderEnding(crowded(n)).trimEnd().split("\n");
    assert.ok(lines.length <= ENDING_MAX_LINES, `${n}: ${lines.length} lines`);
    for (const line of lines.slice(0, -1)) assert.ok(line.length <= ENDING_MAX_COLUMNS, `${n}: ${line}`);
    assert.equal(lines.at(-1), FOLDER, "the folder is the last line, whole, for tail -1");
    assert.match(lines[0]!, /^run: nonconforming/);
  }
});

Deno.test("the ending keeps each fix whole and counts what it leaves out", () => {
  const text = renderEnding(crowded(40));
  assert.match(text, /-> pass --f0\n/);
  assert.match(text, /and \d+ more: see README\.md in the folder/);
  assert.match(text, /^not given \(pass --flag-0, .* and \d+ more\)$/m);
  assert.match(text, /^not measurable here: value 0 \(no tool answered\)/m);
  assert.match(text, /^failed: performance-short-r0 \(failed\)/m);
});

Deno.test("an ending with nothing missing and no problem prints no empty groups", () => {
  const text = renderEnding({
    status: "run: complete; sanity 12/12",
    numbers: ["decode tok/s  short 50.1"],
    problems: [],
    missing: { notGiven: [], notMeasurable: [], failed: [] },
    next: [],
    folder: "bench-results/r",
  });
  assert.equal(text, "run: complete; sanity 12/12\n  decode tok/s  short 50.1\nbench-results/r\n");
});

Deno.test("missing values fall in three groups: a flag to pass, not measurable here, failed", () => {
  assert.equal(missingGroup("not given (pass --quantization)", "/model/quantization"), "not given");
  assert.equal(missingLabel("not given (pass the model id)", "/model/id"), "not given (pass --model-id)");
  assert.equal(missingGroup("no custom pack declared (--custom-pack)", "/model/custom_pack"), "not given");
  assert.equal(missingGroup("no GPU tool answered: nvidia-smi not found", "/software/drivers"), "not measurable here");
  assert.equal(missingLabel("lsblk reports no model", null), "not measurable here (lsblk reports no model)");
  assert.equal(missingGroup("no answer text or tool call arrived before the request failed (timeout)", null), "failed");
  assert.equal(missingGroup("request was skipped: the engine stopped answering", null), "failed");
});

Deno.test("each nonconforming reason gets a fix: the flag it names, else what to do", () => {
  assert.equal(fixFor("the server's build_info carries no commit (pass --engine-commit)"), "pass --engine-commit");
  assert.match(fixFor("the server is the scripted engine (a simulation)"), /--url/);
  assert.match(fixFor("the server is not on loopback"), /127\.0\.0\.1/);
  assert.equal(fixFor("something new"), "see Status in README.md");
});

Deno.test("a realistic result at a glance: status, three headline lines, problems with fixes, grouped missing", async () => {
  const built = await buildRealisticResult({ faults: true });
  await built.cleanup();
  const glance = resultGlance(built.result);
  assert.match(glance.status, new RegExp(`^${built.result.run.status}`));
  assert.match(glance.status, /sanity \d+\/12; \d+ requests: \d+ failed, \d+ skipped/);
  assert.equal(glance.numbers.length, 3);
  assert.match(glance.numbers[1]!, /^decode tok\/s +short \S+ +prompt-4k \S+ +prompt-16k \S+$/);
  for (const p of glance.problems) assert.ok(p.fix.length > 0 && p.problem.length > 0);
  for (const flag of glance.missing.notGiven) assert.match(flag, /^--[a-z-]+$|^[a-z ]+$/);
  assert.ok(glance.missing.failed.length > 0, "the run has a failed and two skipped requests");
  const lines = renderEnding({ ...glance, next: [], folder: "f" }).trimEnd().split("\n");
  assert.ok(lines.length <= ENDING_MAX_LINES && lines.every((l) => l.length <= ENDING_MAX_COLUMNS));
});
