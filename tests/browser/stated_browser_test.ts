/**
 * A genuine result whose sanity verdicts the runner had to state (redaction changed the answer text they were
 * scored on: the right answer names the host) is verified in a real browser, and its page says which values it
 * could not recompute instead of presenting them as verified. A screenshot of the sanity section goes to
 * $STRATA_CI_LOGS (or a temporary folder).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createSanitizer } from "../../sanitize/sanitize.ts";
import { cleanup, runScripted, type ScriptedRun } from "../scripted/_harness.ts";
import { publishOne } from "../site/_published_site.ts";
import { launchChromium } from "./_chromium.ts";

Deno.test({
  name: "a result with values stated by the runner is verified in chromium, and its page names them",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const root = await Deno.makeTempDir({ prefix: "strata-stated-browser-" });
    const shots = Deno.env.get("STRATA_CI_LOGS") ?? await Deno.makeTempDir({ prefix: "strata-site-screenshots-" });
    await Deno.mkdir(shots, { recursive: true });
    let run: ScriptedRun | undefined;
    try {
      run = await runScripted({
        deps: {
          sanitizers: createSanitizer({ username: "alice", hostname: "orion.lab.example", homeDir: "/var/lib/alice" }),
        },
        // I3's and T4's right answers name the project "Orion", which the host-name redaction replaces.
        mock: { script: { "sanity-I3": {}, "sanity-T4": {} } },
      });
      assert.deepEqual(run.problems, []);
      // The scripted engine's result is a simulation, which is never approved; relabelled as the site's own
      // fixtures are (tests/site/_fixture_repo.ts), its evidence unchanged.
      const site = await publishOne(root, run.report.folder, {
        name: "stated-values",
        message: "benchmark: a result with stated verdicts",
        change: { status: "complete", gpu: "NVIDIA RTX A4000", quant: "Q4_K_M" },
      });
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
        const errors: string[] = [];
        page.on("pageerror", (error) => errors.push(error.message));
        await page.goto(site.base);
        await page.waitForSelector('html[data-state="done"]', { timeout: 60_000 });
        const row = page.locator(`[data-run="${run.result.run.id}"]`).first();
        const rowText = await row.innerText({ timeout: 5_000 }).catch(async () =>
          await page.locator("main").innerText()
        );
        assert.match(rowText, /12\/12\s*10 recomputed, 2 stated/, `the index marks the stated verdicts: ${rowText}`);
        await page.goto(`${site.base}r/${run.result.run.id}/`);
        await page.waitForSelector('html[data-state="done"]', { timeout: 60_000 }).catch(async (error) => {
          throw new Error(`${error}\n${await page.locator("body").innerText()}\n${errors.join("\n")}`);
        });
        const main = await page.locator("main").innerText();
        assert.equal(await page.locator("#verdict.verdict-ok").count(), 1, main);
        assert.match(main, /Values stated by the runner, not recomputed/);
        const stated = await page.locator("#stated").innerText();
        assert.match(stated, /sanity-I3: \/evaluation\/passed, \/evaluation\/reason/);
        assert.match(stated, /sanity-T4: /);
        const i3 = await page.locator("#sanity tr", { hasText: "I3" }).innerText();
        assert.match(i3, /pass\s+stated by the runner/);
        await page.locator("#sanity").screenshot({ path: join(shots, "stated-values-sanity.png") });
        await page.locator("#stated").screenshot({ path: join(shots, "stated-values-list.png") });
        assert.deepEqual(errors, [], "the page ran without script errors");
      } finally {
        await browser.close();
        await site.close();
      }
    } finally {
      await cleanup(run);
      await Deno.remove(root, { recursive: true });
    }
  },
});
