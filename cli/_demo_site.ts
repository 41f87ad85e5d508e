/**
 * `demo --site DIR`: the demo's result as a throwaway website, for a newcomer without a GPU. The result folder is
 * written into DIR/repo (a scratch git repository made for it), the site into DIR/site with every page marked
 * SIMULATED (site/'s buildDemoSite), and the site is served on loopback until Ctrl-C.
 */
import { join, relative, resolve } from "node:path";
import { invocationFolder, readDirOutcome, readFile, resultFiles, writeStdout } from "../runtime/mod.ts";
import { buildDemoSite, gitRunner, KNOWN_PROTOCOLS, openSiteOutput, outputFiles, readWebFile } from "../site/mod.ts";
import { bundleFiles, serveFolder } from "./site.ts";
import { endWith } from "./exit_codes.ts";

/** Where the demo site's parts go. */
export interface DemoSitePlan {
  repo: string;
  /** Where the demo writes its result folder (inside the scratch repository). */
  resultsRoot: string;
  site: string;
}

/** Checks that DIR is new or empty, and names its parts; a problem is said in words. */
export async function prepareDemoSite(dir: string): Promise<DemoSitePlan | { problem: string }> {
  const root = resolve(invocationFolder(), dir);
  const listed = await readDirOutcome(root);
  if (listed.ok && listed.value.length > 0) {
    return { problem: `Cannot make the demo site in "${root}": the folder is not empty; name a new or empty folder` };
  }
  const repo = join(root, "repo");
  return { repo, resultsRoot: join(repo, "bench", "results"), site: join(root, "site") };
}

/** Builds the simulated site from the demo's result `folder` and serves it. Returns the exit code. */
export async function showDemoSite(plan: DemoSitePlan, folder: string, port: number): Promise<number> {
  try {
    const out = await openSiteOutput(outputFiles, plan.site);
    const report = await buildDemoSite({
      git: gitRunner(plan.repo),
      resultFolder: relative(plan.repo, folder).split("\\").join("/"),
      readFile: (path) => readFile(join(plan.repo, path)),
      writeFile: (path, bytes) => resultFiles.writeAtomic(join(plan.repo, path), bytes),
      out,
      protocols: KNOWN_PROTOCOLS,
      readWebFile,
      readBundleFile: bundleFiles(),
    });
    await out.finish(report.files);
  } catch (error) {
    return endWith(error, (message) => `Cannot build the demo site: ${message}`);
  }
  writeStdout(
    `SIMULATED demo site (never approvable) in ${plan.site}; its scratch repository: ${plan.repo}\n` +
      `serve it again later with: strata-bench site serve ${plan.site}\n`,
  );
  return await serveFolder(plan.site, "127.0.0.1", port);
}
