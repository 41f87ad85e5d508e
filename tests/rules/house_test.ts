/**
 * The house rules as tests: only runtime/ names the runtime, parts meet through their mod.ts, every import points
 * down the floors, no import circle, the scripted engine shares no code with the client, tests/unit mirrors the
 * source folders, a mod.ts exports only what other parts use (the face rule), no product file is over 450 lines (the
 * size rule) and no product function over 80 (the function-length rule). Each rule is checked on the real tree, and
 * once on a small house built to break it.
 */
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { FACE_ALLOWED, FUNCTION_ALLOWED, SIZE_ALLOWED } from "./_allowed.ts";
import { functionLengthViolations, functionSpans } from "./_function_length.ts";
import {
  circleViolations,
  codeOnly,
  faceViolations,
  floorViolations,
  importsOf,
  mirrorViolations,
  mockClientViolations,
  partOf,
  REPO,
  sizeViolations,
  type SourceFile,
  sourceFiles,
  surfaceViolations,
  type Violation,
} from "./_house.ts";

const files = await sourceFiles();
const imports = files.flatMap(importsOf);
const parts = new Set(files.filter((f) => /^[^/]+\/mod\.ts$/.test(f.path)).map((f) => partOf(f.path)));

function show(violations: readonly Violation[]): string {
  return violations.map((v) => `${v.at}: ${v.problem}`).join("\n");
}

Deno.test("the house is read whole: every part's mod.ts and thousands of imports", () => {
  for (const part of ["contract", "runtime", "client", "fixtures", "score", "mock", "probe", "report", "engine"]) {
    assert.ok(parts.has(part), `${part}/mod.ts`);
  }
  assert.ok(parts.has("runner") && parts.has("load"));
  assert.ok(imports.length > 300, `only ${imports.length} imports read`);
  assert.ok(imports.some((i) => i.from === "runner/run_protocol.ts" && i.to === "report/mod.ts"));
});

Deno.test("only runtime/ and the entry name Deno, Bun, process or console", async () => {
  const { runtimeNameViolations } = await import("./_house.ts");
  assert.deepEqual(show(runtimeNameViolations(files)), "");
});

Deno.test("parts import each other only through their mod.ts", () => {
  assert.deepEqual(show(surfaceViolations(imports, parts)), "");
});

Deno.test("every import points down the floors (fixtures/ included)", () => {
  assert.deepEqual(show(floorViolations(imports)), "");
});

Deno.test("no file imports itself through a circle of others", () => {
  assert.deepEqual(show(circleViolations(imports)), "");
});

Deno.test("the scripted engine and the client share no code", () => {
  assert.deepEqual(show(mockClientViolations(imports)), "");
});

Deno.test("tests/unit mirrors the source folders", async () => {
  const tests: string[] = [];
  for (const dir of await readdir(join(REPO, "tests/unit"), { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const file of await readdir(join(REPO, "tests/unit", dir.name))) tests.push(`tests/unit/${dir.name}/${file}`);
  }
  assert.ok(tests.length > 80);
  assert.deepEqual(show(mirrorViolations(tests, files.map((f) => f.path))), "");
});

/** The most lines a product file may have (.ts, .js, .mjs outside tests/, benchmarks/, bin/ and the bundle). */
const MAX_FILE_LINES = 450;

Deno.test("a part's mod.ts exports only what another part uses (today's known offenders listed in _allowed.ts)", () => {
  assert.deepEqual(show(faceViolations(files, FACE_ALLOWED)), "");
});

Deno.test("no product file is over 450 lines (today's known offenders listed in _allowed.ts, never growing)", () => {
  assert.deepEqual(show(sizeViolations(files, MAX_FILE_LINES, SIZE_ALLOWED)), "");
});

/** The most lines a product function may have, from its declaring line to its closing brace. */
const MAX_FUNCTION_LINES = 80;

Deno.test("no product function is over 80 lines (known offenders listed in _allowed.ts, never growing)", () => {
  assert.deepEqual(show(functionLengthViolations(files, MAX_FUNCTION_LINES, FUNCTION_ALLOWED)), "");
});

// ------------------------------------------------------------------ each rule fails on a house built to break it

function house(sources: Record<string, string>): SourceFile[] {
  return Object.entries(sources).map(([path, text]) => ({ path, text }));
}

Deno.test("the scanner blanks comments, strings, templates and regexes, and keeps substitutions as code", () => {
  const code = codeOnly('const a = "Deno.x"; // console.log\n/* process */ const b = `x${Bun.y}z`; const r = /Deno/;');
  assert.ok(!code.includes("Deno.x") && !code.includes("console") && !code.includes("process"));
  assert.ok(code.includes("Bun.y"), code);
  assert.ok(!/\/Deno\//.test(code), code);
  assert.throws(() => codeOnly('const a = "open'), SyntaxError);
});

Deno.test("a file outside runtime/ that names Deno or console breaks the runtime rule, a comment does not", async () => {
  const { runtimeNameViolations } = await import("./_house.ts");
  const broken = house({
    "score/a.ts": "export const x = Deno.env.get('X');\n",
    "report/b.ts": "// console.log is fine in a comment\nexport function f() { console.log(1); }\n",
    "load/c.ts": "const g = (globalThis as { Bun?: unknown }).Bun;\n",
    "load/d.ts": "export const schedule = { process: 'poisson' }; const p = options.process;\n",
    "runtime/e.ts": "export const y = Deno.args;\n",
  });
  assert.deepEqual(runtimeNameViolations(broken).map((v) => v.at), ["score/a.ts:1", "report/b.ts:2", "load/c.ts:1"]);
});

Deno.test("an import into another part's private file breaks the surface rule", () => {
  const broken = importsOf({ path: "runner/x.ts", text: 'import { a } from "../report/_checks.ts";\n' });
  const violations = surfaceViolations(broken, new Set(["report", "runner"]));
  assert.equal(violations.length, 1);
  assert.match(violations[0]!.problem, /report\/_checks\.ts.*import report\/mod\.ts/);
  assert.deepEqual(
    surfaceViolations(importsOf({ path: "runner/x.ts", text: 'import "../report/mod.ts";' }), parts),
    [],
  );
});

Deno.test("an import that runs back up or sideways names the offending file pair", () => {
  const broken = [
    ...importsOf({ path: "score/sanity.ts", text: 'import type { R } from "../report/mod.ts";\n' }),
    ...importsOf({ path: "load/x.ts", text: '\nexport { y } from "../runner/mod.ts";\n' }),
    ...importsOf({ path: "attic/z.ts", text: 'const m = await import("../score/mod.ts");\n' }),
  ];
  const problems = floorViolations(broken).map((v) => `${v.at} ${v.problem}`);
  assert.equal(problems.length, 3);
  assert.match(problems[0]!, /^score\/sanity\.ts:1 score\/sanity\.ts -> report\/mod\.ts runs back up/);
  assert.match(problems[1]!, /^load\/x\.ts:2 load\/x\.ts -> runner\/mod\.ts runs sideways/);
  assert.match(problems[2]!, /attic\/ has no floor/);
  assert.deepEqual(
    floorViolations(importsOf({ path: "cli/a.ts", text: 'import "../report/mod.ts"; // import "../cli/b.ts"' })),
    [],
  );
});

Deno.test("a circle of imports is found and named once", () => {
  const broken = house({
    "report/a.ts": 'import "./b.ts";\n',
    "report/b.ts": 'import "./c.ts";\n',
    "report/c.ts": 'import "./a.ts";\n',
    "report/d.ts": 'import "./a.ts";\n',
  }).flatMap(importsOf);
  const circles = circleViolations(broken);
  assert.equal(circles.length, 1);
  assert.match(circles[0]!.problem, /report\/a\.ts -> report\/b\.ts -> report\/c\.ts -> report\/a\.ts/);
});

Deno.test("the mock importing the client (or score) breaks the shared-code rule", () => {
  const broken = [
    ...importsOf({ path: "mock/_sse.ts", text: 'import { SseParser } from "../client/mod.ts";' }),
    ...importsOf({ path: "client/x.ts", text: 'import { KNOWN_ANSWERS } from "../mock/mod.ts";' }),
    ...importsOf({ path: "mock/_y.ts", text: 'import { SCRIPTED_ENGINE_PROP } from "../contract/mod.ts";' }),
  ];
  assert.deepEqual(mockClientViolations(broken).map((v) => v.at), ["mock/_sse.ts:1", "client/x.ts:1"]);
});

Deno.test("a unit test that mirrors no source file (a wing's files included), or lives outside a part's folder, breaks the mirror rule", () => {
  const sources = ["score/sanity.ts", "mock/_behaviour.ts", "report/mod.ts", "report/checks/_evidence.ts"];
  const tests = [
    "tests/unit/score/sanity_test.ts",
    "tests/unit/mock/behaviour_faults_test.ts",
    "tests/unit/report/mod_test.ts",
    "tests/unit/report/checks_evidence_test.ts",
    "tests/unit/report/evidence_lines_test.ts",
    "tests/unit/report/checks_test.ts",
    "tests/unit/score/sanitation_test.ts",
    "tests/unit/sanitize/sanitize_test.ts",
    "tests/unit/loose_test.ts",
    "tests/unit/score/_helpers.ts",
    "tests/unit/report/wings_evidence_test.ts",
  ];
  assert.deepEqual(mirrorViolations(tests, sources).map((v) => v.at), [
    "tests/unit/score/sanitation_test.ts",
    "tests/unit/sanitize/sanitize_test.ts",
    "tests/unit/loose_test.ts",
    "tests/unit/report/wings_evidence_test.ts",
  ]);
});

Deno.test("an export no other part uses breaks the face rule; a use from a test does not count", () => {
  const broken = house({
    "score/mod.ts": 'export { median, mean } from "./stats.ts";\nexport const SPARE = 1;\nexport type Unused = 1;\n',
    "score/stats.ts": "export function median() {}\nexport function mean() {}\n",
    "report/a.ts": 'import { median } from "../score/mod.ts";\nexport const m = median();\n',
    "score/b.ts": 'import { mean } from "./mod.ts";\nmean();\n',
    "runtime/mod.ts": 'export * from "./_x.ts";\n',
    "runtime/_x.ts": "export function used() {}\nexport function idle() {}\n",
    "cli/c.ts": 'import { used } from "../runtime/mod.ts";\nused(); // idle() in a comment is no use\n',
    "tests/unit/score/stats_test.ts": 'import { mean, SPARE } from "../../../score/mod.ts";\nmean(SPARE);\n',
  });
  const problems = faceViolations(broken).map((v) => `${v.at} ${v.problem.split(",")[0]}`);
  assert.deepEqual(problems, [
    "score/mod.ts exports SPARE",
    "score/mod.ts exports Unused",
    "score/mod.ts exports mean",
    "runtime/mod.ts exports idle",
  ]);
  // An allowed name passes; an allowed name that is used, or gone, must leave the list.
  const allowed = { score: ["SPARE", "Unused", "mean", "median", "Gone"], runtime: ["idle"] };
  assert.deepEqual(faceViolations(broken, allowed).map((v) => v.problem), [
    "median is used now: remove it from the face rule's allow-list",
    "Gone is no longer exported: remove it from the face rule's allow-list",
  ]);
});

Deno.test("a product file over the limit breaks the size rule; tests, benchmarks and the bundle do not count", () => {
  const lines = (n: number) => "x;\n".repeat(n);
  const broken = house({
    "load/long.ts": lines(451),
    "load/ok.ts": lines(450),
    "site/web/page.js": lines(500),
    "tests/unit/load/long_test.ts": lines(900),
    "benchmarks/big.ts": lines(900),
    "fixtures/standard-v1/data.js": lines(900),
  });
  assert.deepEqual(sizeViolations(broken, 450).map((v) => v.at), ["load/long.ts", "site/web/page.js"]);
  const allowed = sizeViolations(broken, 450, { "site/web/page.js": 480, "load/ok.ts": 460 });
  assert.deepEqual(allowed.map((v) => `${v.at}: ${v.problem.split(":")[0]}`), [
    "load/long.ts: 451 lines, over 450",
    "site/web/page.js: 500 lines, over 450 (and over the 480 it had)",
    "load/ok.ts: within 450 lines now (or gone)",
  ]);
});

Deno.test("a function over the limit breaks the function-length rule, its parameters and nested blocks counted", () => {
  const body = (n: number, indent = "  ") => `${indent}x();\n`.repeat(n);
  const broken = house({
    "load/a.ts": `export async function long(\n  a: number,\n): Promise<void> {\n${body(78)}}\n` +
      `function ok() {\n${body(78)}}\n`,
    "load/b.ts": `const arrow = async (x: number) => {\n  if (x) {\n${body(79, "    ")}  }\n};\n`,
    "load/c.ts": `class C {\n  method(): void {\n${body(79, "    ")}  }\n}\n` +
      `const call = f({\n${body(90)}});\nconst text = "function s() {";\n`,
    "tests/unit/load/a_test.ts": `function t() {\n${body(200)}}\n`,
  });
  assert.deepEqual(functionSpans(broken[0]!.text).map((s) => `${s.name}:${s.line}:${s.lines}`), [
    "long:1:82",
    "ok:83:80",
  ]);
  assert.deepEqual(functionLengthViolations(broken, 80).map((v) => `${v.at} ${v.problem.split(",")[0]}`), [
    "load/a.ts:1 long is 82 lines",
    "load/b.ts:1 arrow is 83 lines",
    "load/c.ts:2 method is 81 lines",
  ]);
  const allowed = { "load/a.ts long": 81, "load/b.ts arrow": 90, "load/a.ts ok": 85 };
  assert.deepEqual(functionLengthViolations(broken, 80, allowed).map((v) => `${v.at}: ${v.problem.split(":")[0]}`), [
    "load/a.ts:1: long is 82 lines, over 80 (and over the 81 it had)",
    "load/c.ts:2: method is 81 lines, over 80",
    "load/a.ts ok: within 80 lines now (or gone)",
  ]);
});
