/**
 * The pictures a result travels with, in a real browser: Debian's chromium driven headless by playwright-core.
 * Each SVG a run writes (demo with the optional stage, and a realistic real-shaped result), the comparison SVG of
 * `report DIR DIR --svg`, and the offline pages of `load --html` and `compare --html` are opened the way a reader
 * meets them (an SVG as an <img>, as GitHub shows it in a README; a page as a file), must load with their full
 * size and no browser error, and are saved as screenshots in $STRATA_CI_LOGS (or a temporary folder), whose path
 * the test prints. Look at them: a test can say a picture loaded, not that it reads well.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockEngine } from "../../mock/mod.ts";
import { compareResults, comparisonSpec, renderChartSvg, renderResultPictures } from "../../report/mod.ts";
import { buildRealisticResult } from "../unit/report/_realistic_result.ts";
import { launchChromium } from "./_chromium.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

async function command(...args: string[]): Promise<{ code: number; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), { args, cwd: REPO, stdout: "piped", stderr: "piped" })
    .output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

Deno.test({
  name: "every picture and page a result or a load test writes opens in chromium at full size, without errors",
  // The browser's pipes belong to playwright; it closes them in browser.close() below.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const work = await Deno.makeTempDir({ prefix: "strata-pictures-" });
    const shots = Deno.env.get("STRATA_CI_LOGS") ?? await Deno.makeTempDir({ prefix: "strata-picture-shots-" });
    await Deno.mkdir(shots, { recursive: true });
    console.log(`report picture screenshots: ${shots}`);
    const realistic = await buildRealisticResult({ optionalConcurrency: true, asWritten: true });
    const second = await buildRealisticResult({ runId: "second", startedAt: "2026-11-29T16:00:00.000Z" });
    const browser = await launchChromium();
    try {
      const demo = await command(
        "run",
        "-P=test",
        "--no-prompt",
        "mod.ts",
        "demo",
        "--optional-concurrency",
        "--time-scale",
        "0",
        "--out",
        join(work, "demo"),
      );
      assert.equal(demo.code, 0, demo.stderr);
      const [demoFolder] = [...Deno.readDirSync(join(work, "demo"))].map((e) => join(work, "demo", e.name));
      for (const picture of await renderResultPictures(realistic.result)) {
        await Deno.writeTextFile(join(realistic.dir, picture.file), picture.svg);
      }
      const compared = await command(
        "run",
        "-P=test",
        "--no-prompt",
        "mod.ts",
        "report",
        realistic.dir,
        second.dir,
        "--svg",
        "--out",
        work,
      );
      assert.ok(compared.code === 0 || compared.code === 1, compared.stderr);
      // report names a new file in the --out folder and says which.
      const comparisonSvg = /comparison picture written to (\S+)/.exec(compared.stderr)?.[1];
      assert.ok(comparisonSvg !== undefined, compared.stderr);

      const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });

      const svgs: [string, string][] = [
        ...["rates", "latency", "caps", "rounds"].map((
          n,
        ): [string, string] => [`demo-${n}`, join(demoFolder!, `${n}.svg`)]),
        ...["rates", "latency", "caps", "rounds"].map((
          n,
        ): [string, string] => [`result-${n}`, join(realistic.dir, `${n}.svg`)]),
        ["comparison", comparisonSvg],
      ];
      for (const [name, file] of svgs) {
        await t.step(`${name}: the SVG loads as an image at its full size`, async () => {
          const html = join(work, `${name}.html`);
          await Deno.writeTextFile(
            html,
            `<!doctype html><body style="margin:0;background:#fff"><img src="${file}"></body>`,
          );
          await page.goto(`file://${html}`);
          // Runs in the page: the image element's own facts.
          const image = await page.locator("img").evaluate((node) => {
            const img = node as unknown as { complete: boolean; naturalWidth: number; naturalHeight: number };
            return { complete: img.complete, width: img.naturalWidth, height: img.naturalHeight };
          });
          assert.ok(image.complete && image.width > 200 && image.height > 100, `${name}: ${JSON.stringify(image)}`);
          await page.screenshot({ path: join(shots, `report-${name}.png`), fullPage: true });
        });
      }

      await t.step("report A B: A and B on one axis per case, with the delta and runs that disagree", async () => {
        const more = [];
        for (const [runId, decode, ttft] of [["a2", 1, 2], ["b1", 1.25, 0.8], ["b2", 1.22, 0.82]] as const) {
          const built = await buildRealisticResult({ runId, startedAt: `2026-11-29T1${more.length + 7}:00:00.000Z` });
          await built.cleanup();
          if (runId.startsWith("b")) built.result.configuration.server_capacity = 2;
          for (const r of built.result.requests) {
            if (r.metrics.decode_tps !== null) r.metrics.decode_tps *= decode;
            if (r.timings.ttft_s !== null) r.timings.ttft_s *= ttft;
          }
          more.push({ folder: runId, result: built.result });
        }
        const a1 = await buildRealisticResult({ runId: "a1", startedAt: "2026-11-29T16:00:00.000Z" });
        await a1.cleanup();
        const svg = await renderChartSvg(
          comparisonSpec(compareResults([{ folder: "a1", result: a1.result }, ...more])),
        );
        const file = join(work, "comparison-ab.svg");
        await Deno.writeTextFile(file, svg);
        await Deno.writeTextFile(join(work, "ab.html"), `<!doctype html><body style="margin:0"><img src="${file}">`);
        await page.goto(`file://${join(work, "ab.html")}`);
        await page.screenshot({ path: join(shots, "report-comparison-ab.png"), fullPage: true });
        assert.match(svg, /B vs A: \+2[0-9.]+% \(95% \+[0-9.]+% to \+[0-9.]+%\): B better/);
        assert.match(svg, /A: runs [0-9.]+; [0-9.]+, not pooled/);
      });

      await t.step("load --html and compare --html pages open offline with their pictures", async () => {
        const engine = await startMockEngine({
          timeScale: 0.02,
          slots: 4,
          script: { "*": { answer: { kind: "text", text: "one two three four five six" }, reasoningTokens: 4 } },
        });
        const other = await startMockEngine({ timeScale: 0.02, slots: 4 });
        try {
          const load = await command(
            "run",
            "-P=load",
            `--allow-write=${work}`,
            "--no-prompt",
            "mod.ts",
            "load",
            "--url",
            engine.url,
            "--url",
            other.url,
            // A sweep: the page draws its throughput-latency curve.
            "--concurrency",
            "1,4",
            "--requests",
            "20",
            "--html",
            "--out",
            work,
          );
          assert.equal(load.code, 0, load.stderr);
          const loadPage = /page written to (\S+)/.exec(load.stderr)?.[1];
          assert.ok(loadPage !== undefined, load.stderr);
          const compared = await command(
            "run",
            "-P=load",
            `--allow-write=${work}`,
            "--no-prompt",
            "mod.ts",
            "compare",
            ...["--baseline", engine.url, "--candidate", other.url, "--concurrency", "1,2", "--rounds", "2"],
            ...["--requests", "4", "--warmup-requests", "1", "--workload", "chat-short", "--sample", "8"],
            ...["--tolerance", "0.5", "--html", "--out", work],
          );
          assert.ok(compared.code === 0 || compared.code === 1, compared.stderr);
          const comparePage = /page written to (\S+)/.exec(compared.stderr)?.[1];
          assert.ok(comparePage !== undefined, compared.stderr);
          // The same comparison after the fact: report FILE.jsonl writes its page and its curve.
          const saved = comparePage.replace(/\.html$/, ".jsonl");
          const again = await command(
            "run",
            "-P=test",
            "--no-prompt",
            "mod.ts",
            "report",
            saved,
            "--out",
            join(work, "s"),
          );
          assert.ok(again.code === 0 || again.code === 1, again.stderr);
          const curve = /wrote (\S+-curve\.svg)/.exec(again.stderr)?.[1];
          assert.ok(curve !== undefined, again.stderr);
          await Deno.writeTextFile(
            join(work, "curve.html"),
            `<!doctype html><body style="margin:0"><img src="${curve}">`,
          );
          for (
            const [name, file] of [["load", loadPage], ["compare", comparePage], ["curve", join(work, "curve.html")]]
          ) {
            await page.goto(`file://${file}`);
            const svgCount = await page.locator(name === "curve" ? "img" : "svg").count();
            assert.ok(svgCount >= 1, `${name}: ${svgCount} pictures`);
            if (name !== "curve") assert.ok(await page.locator("dl.config").count() === 1, `${name}: what was run`);
            if (name !== "curve") {
              // The curve's percentile legend as chromium draws it: a solid, a dashed and a dotted line, each stroked.
              const legend = await page.evaluate(
                `[...document.querySelectorAll(".role-legend-symbol path[stroke-dasharray]")].map((p) => ` +
                  "[p.getAttribute('stroke-dasharray'), getComputedStyle(p).stroke, p.getBBox().width])",
              ) as [string, string, number][];
              for (const dash of ["1,0", "6,3", "2,2"]) {
                const drawn = legend.filter(([d, stroke, width]) => d === dash && stroke !== "none" && width > 0);
                assert.ok(
                  drawn.length > 0,
                  `${name}: the ${dash} percentile symbol is drawn: ${JSON.stringify(legend)}`,
                );
              }
            }
            await page.screenshot({ path: join(shots, `report-${name}-page.png`), fullPage: true });
          }
        } finally {
          await engine.close();
          await other.close();
        }
      });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await realistic.cleanup();
      await second.cleanup();
      await Deno.remove(work, { recursive: true });
    }
  },
});
