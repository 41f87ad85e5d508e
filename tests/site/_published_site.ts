/**
 * One result folder published the way a results repository publishes it: committed to a fresh repository on main,
 * approved with `approved add`, built with `site build` and served on loopback. For the tests that open a real
 * result's page in chromium.
 */
import { join } from "node:path";
import { serveHttp } from "../../runtime/mod.ts";
import {
  addApproved,
  buildSite,
  folderReader,
  GitRepo,
  gitRunner,
  KNOWN_PROTOCOLS,
  MANIFEST_PATH,
  openSiteOutput,
  outputFiles,
  readWebFile,
  siteRequestHandler,
} from "../../site/mod.ts";
import { copyFolder, git, type Relabel, relabel } from "./_fixture_repo.ts";
import { SITE_BUNDLE } from "./_bundle.ts";

/** The served site and the manifest entry approve wrote. */
export interface PublishedSite {
  base: string;
  entry: { run_id: string | null };
  close(): Promise<void>;
}

/**
 * Publishes `folder` as bench/results/`name` of a repository under `root`; `change` relabels the copy first (a
 * simulation is never approved).
 */
export async function publishOne(
  root: string,
  folder: string,
  options: { name: string; message: string; change?: Relabel },
): Promise<PublishedSite> {
  const repo = join(root, "results-repo");
  const target = join(repo, "bench", "results", options.name);
  await Deno.mkdir(join(repo, "bench", "results"), { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  await copyFolder(folder, target);
  if (options.change !== undefined) await relabel(target, options.change);
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", options.message);
  const manifestPath = join(repo, MANIFEST_PATH);
  const added = await addApproved(new GitRepo(gitRunner(repo)), {
    readManifest: () => Deno.readTextFile(manifestPath).catch(() => null),
    writeManifest: (text: string) => Deno.writeTextFile(manifestPath, text),
  }, {
    folder: `bench/results/${options.name}`,
    reviewPr: "https://github.com/example/results/pull/1",
    reviewedBy: "maintainer-one",
    now: new Date(),
    reproduces: [],
    replace: false,
    protocols: KNOWN_PROTOCOLS,
    ...SITE_BUNDLE,
  });
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "approve the reviewed result");
  const out = join(root, "site");
  const writer = await openSiteOutput(outputFiles, out);
  // A fresh GitRepo: one that answered before the approval commit remembers the branch head it read then.
  const report = await buildSite(new GitRepo(gitRunner(repo)), writer, {
    protocols: KNOWN_PROTOCOLS,
    ...SITE_BUNDLE,
    protocolDeclarations: null,
    readWebFile,
  });
  await writer.finish(report.files);
  const server = await serveHttp({ hostname: "127.0.0.1", port: 0, onRequest: siteRequestHandler(folderReader(out)) });
  return { base: `http://127.0.0.1:${server.port}/`, entry: added.entry, close: () => server.close() };
}
