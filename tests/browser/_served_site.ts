/** A results repository built as a site (`buildSite`) and served on loopback, for the browser tests. */
import { join } from "node:path";
import { serveHttp } from "../../runtime/mod.ts";
import {
  buildSite,
  folderReader,
  GitRepo,
  gitRunner,
  knownProtocols,
  openSiteOutput,
  outputFiles,
  readWebFile,
  siteRequestHandler,
} from "../../site/mod.ts";
import { SITE_BUNDLE } from "../site/_bundle.ts";

/** The served site: its URL, the folder it was built into, and how to stop serving. */
export interface ServedSite {
  base: string;
  out: string;
  close(): Promise<void>;
}

/** Builds `repo` into `root`/site with the protocol declarations `declarations`, and serves it. */
export async function buildAndServe(root: string, repo: string, declarations: Uint8Array): Promise<ServedSite> {
  const out = join(root, "site");
  const writer = await openSiteOutput(outputFiles, out);
  const report = await buildSite(new GitRepo(gitRunner(repo)), writer, {
    protocols: knownProtocols(declarations),
    ...SITE_BUNDLE,
    protocolDeclarations: declarations,
    readWebFile,
  });
  await writer.finish(report.files);
  const server = await serveHttp({ hostname: "127.0.0.1", port: 0, onRequest: siteRequestHandler(folderReader(out)) });
  return { base: `http://127.0.0.1:${server.port}/`, out, close: () => server.close() };
}
