/**
 * Saved load and compare results after the fact: `report FILE.jsonl` reads back what `load` and `compare` wrote
 * (the same summaries, the rows in the same columns), refuses a damaged or foreign file with every problem by line,
 * and `compare --from` gates saved results offline with the live gate's rules and numbers.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type MockEngine, startMockEngine } from "../../mock/mod.ts";
import { parseLoadCommand } from "../../cli/load.ts";
import { parseCompareCommand } from "../../cli/compare.ts";
import {
  curvePoints,
  gateSaved,
  readSavedResults,
  realLoadDeps,
  recordedNoiseFloor,
  runCompare,
  runLoadTest,
  savedCsv,
  SavedResultsRefusal,
} from "../../load/mod.ts";
import { latencyCurveSpec, renderChartSvg } from "../../report/mod.ts";
import { lineErrors } from "../unit/contract/_load_lines.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const ENGINE = {
  promptTps: 1_000_000,
  timeScale: 0.05,
  slots: 4,
  script: { "*": { answer: { kind: "text" as const, text: "one two three four five six seven eight" } } },
};

async function command(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-P=test", "--no-prompt", "mod.ts", ...args],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
}

/** A saved load result (two runs) and a saved compare result (two points), from scripted engines. */
async function savedFiles(dir: string, engines: MockEngine[]) {
  const load = join(dir, "2026-12-01-load-a.jsonl");
  const options =
    parseLoadCommand(["--url", engines[0]!.url, "--concurrency", "2", "--requests", "8", "--repeat", "2"]).options;
  options.out = load;
  const loaded = await runLoadTest(options, realLoadDeps());
  assert.equal(loaded.status, "ok");
  const compare = join(dir, "2026-12-01-compare-a.jsonl");
  const compareOptions = parseCompareCommand([
    ...["--baseline", engines[0]!.url, "--candidate", engines[1]!.url, "--concurrency", "1,2", "--rounds", "2"],
    ...["--requests", "4", "--warmup-requests", "1", "--workload", "chat-short", "--sample", "8"],
  ]).options;
  compareOptions.out = compare;
  const compared = await runCompare(compareOptions, realLoadDeps());
  assert.ok(compared.result !== null);
  return { load, loaded, compare, compared, compareOptions };
}

Deno.test({
  name: "saved load and compare results read back, gate again offline, and refuse damaged or foreign files",
  fn: async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "strata-saved-"));
    const engines = [await startMockEngine({ ...ENGINE, decodeTps: 200 }), await startMockEngine(ENGINE)];
    try {
      const { load, loaded, compare, compared, compareOptions } = await savedFiles(dir, engines);

      await t.step("every line load and compare wrote satisfies the published load line schema", async () => {
        for (const file of [load, compare]) {
          const lines = (await readFile(file, "utf8")).trim().split("\n").map((l) => JSON.parse(l));
          const formats = new Set(lines.map((l) => l.format));
          for (const [i, line] of lines.entries()) assert.deepEqual(lineErrors(line), [], `${file} line ${i + 1}`);
          const mixes = lines.filter((l) => l.prompt_mix !== undefined).map((l) => l.prompt_mix);
          for (const mix of mixes) assert.deepEqual(lineErrors(mix), [], "a summary's prompt mix");
          if (file === load) assert.equal(mixes.length, 2, "each run's summary carries its prompt mix");
          assert.ok(formats.size >= 3, [...formats].join());
        }
      });

      await t.step("a saved load result holds the run's own summaries and its measured rows", async () => {
        const saved = await readSavedResults(load);
        assert.equal(saved.kind, "load");
        assert.equal(saved.runs.length, 2);
        assert.equal(saved.aggregate?.runs, 2, "--repeat 2 wrote the cross-run aggregate");
        const live = loaded.status === "ok" ? loaded.runs : [];
        for (const [i, run] of saved.runs.entries()) {
          assert.deepEqual(run.summary.overall, JSON.parse(JSON.stringify(live[i]!.summary.overall)));
          assert.equal(run.store.size, 8);
        }
        const csv = savedCsv(saved.summaries).trim().split("\n");
        assert.equal(csv.length, 3, "a header and one line per run");
        assert.match(csv[0]!, /^side,workload,run,round,mode,concurrency,.*,ttft_p50_ms,/);
        assert.equal(latencyCurveSpec("t", curvePoints(saved.summaries)), null, "one load level is no curve");
        // A sweep (runs at several concurrency levels) is a curve: one line per server through its levels.
        const sweep = saved.summaries.map((s, i) => ({ ...s, effective_max_concurrency: 2 + 2 * i }));
        const points = curvePoints(sweep);
        assert.deepEqual(points.map((p) => [p.series, p.load]), [[engines[0]!.url, "c=2"], [engines[0]!.url, "c=4"]]);
        assert.equal(points[1]!.outputTokensPerS, saved.summaries[1]!.endpoints[0]!.output_tokens_per_s);
        assert.match(await renderChartSvg(latencyCurveSpec("Sweep", points)!), /TPOT against throughput/);
      });

      await t.step("compare --from over a saved compare result gives the live verdict, number for number", async () => {
        const saved = await readSavedResults(compare);
        assert.equal(saved.kind, "compare");
        assert.deepEqual(saved.verdict, JSON.parse(JSON.stringify(compared.result)));
        // The recorded noise floor (compare --noise-floor-from) is read from the same checked file, and only from a
        // compare result.
        const floorLine = (await readFile(compare, "utf8")).trim().split("\n").map((l) => JSON.parse(l))
          .find((l) => l.kind === "noise-floor");
        assert.ok(Object.keys(floorLine.noise_floor).length > 0);
        assert.deepEqual(recordedNoiseFloor(saved), floorLine.noise_floor);
        assert.throws(() => recordedNoiseFloor({ ...saved, noiseFloor: null }), /has no compare noise-floor line/);
        const forged = { ...saved, noiseFloor: { noise_floor: { "W1@1:ttft_s": "0.1" } } };
        assert.throws(() => recordedNoiseFloor(forged), /records "0.1" for W1@1:ttft_s, not a fraction >= 0/);
        const again = gateSaved(saved, null, { toleranceFraction: compareOptions.tolerance });
        assert.deepEqual(JSON.parse(JSON.stringify(again)), saved.verdict);
        const curve = latencyCurveSpec("Throughput against latency", curvePoints(saved.summaries));
        assert.ok(curve !== null, "two concurrency points make a curve");
        const svg = await renderChartSvg(curve);
        assert.match(svg, /TTFT against throughput/);
        assert.match(svg, />c=2</);
        assert.match(svg, />baseline</);
      });

      await t.step("report FILE.jsonl prints, writes CSV, HTML and the curve; compare --from gates", async () => {
        const out = join(dir, "out");
        const report = await command("report", compare, "--out", out);
        assert.equal(report.code, 1, "the saved gate failed (the candidate decodes slower)");
        assert.match(report.stdout, /compare result .*: valid/);
        assert.match(report.stdout, /gate: FAIL/);
        // It ends as run does: one screen, the verdict first, the page to open, the file last.
        const ending = report.stdout.trimEnd().split("\n").slice(-15);
        assert.ok(ending.some((l) => /^report: saved compare, gate FAIL \(exit 1\)/.test(l)), ending.join("\n"));
        assert.ok(ending.some((l) => /^next: open .*2026-12-01-compare-a-report\.html$/.test(l)), ending.join("\n"));
        assert.equal(ending.at(-1), compare);
        const html = await readFile(join(out, "2026-12-01-compare-a-report.html"), "utf8");
        assert.match(html, /<dl class="config">[\s\S]*<dt>baseline<\/dt>[\s\S]*<dt>workload W1<\/dt>/);
        assert.match(html, /TPOT p50 \(ms\)/);
        assert.doesNotMatch(html, /tpot_p50_s/);
        assert.match(await readFile(join(out, "2026-12-01-compare-a-report-curve.svg"), "utf8"), /^<svg /);
        // The page load --html wrote beside its JSONL (<name>.html) is never replaced, nor an earlier report's files.
        await writeFile(join(out, "2026-12-01-load-a.html"), "the page load --html wrote");
        const loadReport = await command("report", load, "--out", out);
        assert.equal(loadReport.code, 0, loadReport.stderr);
        assert.equal(await readFile(join(out, "2026-12-01-load-a.html"), "utf8"), "the page load --html wrote");
        const page = await readFile(join(out, "2026-12-01-load-a-report.html"), "utf8");
        const again = await command("report", load, "--out", out);
        assert.equal(again.code, 0, again.stderr);
        assert.match(again.stderr, /wrote .*2026-12-01-load-a-report-2\.html/);
        assert.equal(await readFile(join(out, "2026-12-01-load-a-report.html"), "utf8"), page);
        assert.match(page, /<dt>mode<\/dt><dd>closed loop, concurrency 2<\/dd>/);
        assert.match(page, /goodput not measured/);
        assert.match(page, /<dt>date<\/dt><dd>2026-12-01<\/dd>/);
        // An --out folder that is a link is refused by naming the link, not with the writing task's hint.
        await symlink(out, join(dir, "linked-out"));
        const linked = await command("report", load, "--out", join(dir, "linked-out"));
        assert.equal(linked.code, 3);
        assert.match(linked.stderr, /linked-out" is a symbolic link; nothing is written/);
        assert.doesNotMatch(linked.stderr, /report:write/);
        const same = await command("compare", "--from", load, load);
        assert.equal(same.code, 0, same.stderr);
        assert.match(same.stdout, /gate: PASS/);
        assert.match(
          same.stdout,
          /\ncompare: gate PASS \(exit 0\); tolerance \+-5\.0% or the noise floor; 1 point\(s\)\n/,
        );
      });

      await t.step("a damaged, foreign or linked file is refused with every problem by line", async () => {
        const lines = (await readFile(load, "utf8")).split("\n");
        const cases: [string, string, RegExp][] = [
          [
            "duplicate key",
            lines.map((l, i) => i === 2 ? l.replace('{"run":', '{"run":0,"run":') : l).join("\n"),
            /line 3: not strict JSON/,
          ],
          [
            "version",
            lines.map((l) => l.replace('"strata-load-summary","version":3', '"strata-load-summary","version":99')).join(
              "\n",
            ),
            /version 99; this strata-bench reads 3/,
          ],
          ["cut", lines.join("\n").slice(0, -40), /the last line is cut/],
          [
            "end before send",
            lines.map((l, i) => i === 3 ? l.replace(/"send_offset_s":[0-9.e-]+/, '"send_offset_s":5000000') : l).join(
              "\n",
            ),
            /line 4: end_offset_s: [0-9.]+ is before send_offset_s 5000000/,
          ],
          [
            "negative time",
            lines.map((l, i) => i === 4 ? l.replace(/"ttft_s":[0-9.e-]+/, '"ttft_s":-1') : l).join("\n"),
            /line 5: ttft_s: -1 is negative/,
          ],
          [
            // A plausible, well-formed edit of one measured row: only its summary can tell.
            "row against its summary",
            lines.map((l, i) =>
              i === lines.findIndex((x) => x.includes('"phase":"measure"') && x.includes('"status":"success"'))
                ? l.replace(/"ttft_s":[0-9.e-]+/, '"ttft_s":0.0777')
                : l
            ).join("\n"),
            /^run 0: its request rows do not give its own summary's distributions: the file was edited/,
          ],
          [
            // Every offset of one row moved 1e12 s on: refused at once (its bins once asked for terabytes).
            "row moved past its window",
            lines.map((l, i) =>
              i === lines.findIndex((x) => x.includes('"phase":"measure"') && x.includes('"send_offset_s"'))
                ? l.replace(/("[a-z_]+_offset_s"):([0-9.e-]+)/g, (_, k, v) => `${k}:${Number(v) + 1e12}`)
                : l
            ).join("\n"),
            /^run 0: its request rows do not give its own summary's .*window_s/,
          ],
          ["foreign", `{"format":"other","version":1}\n`, /line 1: format "other" is not a load or compare line/],
          ["not config", lines.slice(1).join("\n"), /line 1: the first line is not a load or compare config line/],
        ];
        for (const [name, text, expected] of cases) {
          const path = join(dir, `${name.replaceAll(" ", "-")}.jsonl`);
          await writeFile(path, text);
          await assert.rejects(readSavedResults(path), (e: unknown) => {
            assert.ok(e instanceof SavedResultsRefusal, `${name}: ${e}`);
            assert.ok(e.problems.some((p) => expected.test(p)), `${name}: ${e.problems.join("; ")}`);
            return true;
          });
        }
        const latin1 = join(dir, "latin1.jsonl");
        await writeFile(latin1, new Uint8Array([...new TextEncoder().encode(`${lines[0]}\n`), 0xe9, 0x0a]));
        await assert.rejects(readSavedResults(latin1), (e: unknown) => {
          assert.ok(e instanceof SavedResultsRefusal && e.problems.includes("line 2: not UTF-8 text"), String(e));
          return true;
        });
        await symlink(load, join(dir, "linked.jsonl"));
        await assert.rejects(readSavedResults(join(dir, "linked.jsonl")), /link/);
        const refused = await command("report", join(dir, "duplicate-key.jsonl"));
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /line 3: not strict JSON/);
        // Rows that contradict their summary are refused by line, never a RangeError from a drawing.
        const backwards = await command("report", join(dir, "end-before-send.jsonl"), "--out", join(dir, "out"));
        assert.equal(backwards.code, 1, backwards.stderr);
        assert.match(backwards.stderr, /line 4: end_offset_s: [0-9.]+ is before send_offset_s 5000000/);
        assert.doesNotMatch(backwards.stderr, /RangeError| {4}at /);
      });

      await t.step("saved results of different workloads are never gated against each other", async () => {
        const other = (await readFile(load, "utf8")).replace(
          /"selection_sha256":"[0-9a-f]{64}"/,
          `"selection_sha256":"${"0".repeat(64)}"`,
        );
        await writeFile(join(dir, "other.jsonl"), other);
        const [a, b] = [await readSavedResults(load), await readSavedResults(join(dir, "other.jsonl"))];
        assert.throws(() => gateSaved(a, b, {}), /another workload/);
        assert.throws(() => gateSaved(a, null, {}), /no candidate/);
      });
    } finally {
      for (const engine of engines) await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
});
