/**
 * Result folders for the site benchmarks, made in this process: the standard protocol with the optional
 * concurrency stage against a scripted engine at full speed, two runs at a time, each a run of its own (its own
 * id, clock, stamps and answers) against an engine of its own (a shared one would serve later runs from its prompt
 * cache, which makes them nonconforming), written exactly as `demo` writes one, without a runtime start per folder.
 */
import { mkdir } from "node:fs/promises";
import { loadBundle } from "../fixtures/mod.ts";
import { startMockEngine } from "../mock/mod.ts";
import { realRunDeps, runProtocol } from "../runner/mod.ts";
import { demoRunOptions } from "../cli/demo.ts";

/** Makes `count` folders under `parent`, handing each to `made` (which may move it) as soon as it is written. */
export async function makeDemoFolders(
  parent: string,
  count: number,
  made: (i: number, folder: string) => Promise<void>,
): Promise<void> {
  await mkdir(parent, { recursive: true }); // before two runs race to make it
  const bundle = await loadBundle();
  const tokenCounts = Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens]));
  const deps = realRunDeps({ loadBundle: () => Promise.resolve(bundle) }, { hashCacheDir: null });
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const engine = await startMockEngine({ timeScale: 0, slots: 4, tokenCounts });
      const report = await runProtocol({
        ...demoRunOptions(engine.url, true, ["strata-bench", "demo", "--time-scale", "0", "--optional-concurrency"]),
        outRoot: parent,
      }, deps).finally(() => engine.close());
      if (report.validationProblems.length > 0) {
        throw new Error(`folder ${i} does not validate: ${report.validationProblems[0]?.message}`);
      }
      await made(i, report.folder);
    }
  };
  await Promise.all([worker(), worker()]);
}
