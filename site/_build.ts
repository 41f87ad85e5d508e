/**
 * `site build`: reads bench/approved.json on the repository's default branch, resolves every entry's results.json
 * and artifacts at its evidence_commit from the git object store, and writes a static site: index.html, one page
 * per entry, the browser code, data/ (the manifest's exact bytes, the build's map of where each file lies) and
 * evidence/sha256/<hash> (each evidence file once, named by its SHA-256), so the browser fetches exactly the
 * reviewed bytes and checks them itself. Nothing runs on the server at view time.
 */
import type { GitRepo } from "./_git.ts";
import { folderOf, type KnownProtocol, type ResolvedEntry, resolveEntry } from "./_entries.ts";
import { indexPage, resultPage, slugFor, WEB_FILES } from "./_pages.ts";
import { MANIFEST_PATH, PROTOCOLS_FORMAT, readManifest, sha256Hex } from "./web/mod.js";

export const SITE_FORMAT = "strata-site";
export const SITE_SCHEMA_VERSION = 1;

/** Where the built site's files go: relative "/"-separated paths. */
export interface SiteWriter {
  write(path: string, bytes: Uint8Array): Promise<void>;
}

/** What `site build` needs. */
export interface BuildSiteOptions {
  branch?: string;
  protocols: readonly KnownProtocol[];
  /** The protocol declaration file's bytes (--protocols), copied to data/protocols.json; null for none. */
  protocolDeclarations: Uint8Array | null;
  /** Reads one file of site/web/ (the browser code) by name. */
  readWebFile(name: string): Promise<Uint8Array>;
}

/** What the build found for one entry. */
export interface BuiltEntry {
  label: string;
  slug: string;
  /** Why the site shows the entry as unverifiable. */
  problems: string[];
  /** Evidence that contradicts the review; the browser shows the entry as verification failed. */
  contradictions: string[];
}

/** The outcome of `site build`. */
export interface BuildSiteReport {
  branch: { name: string; commit: string };
  /** Why the manifest could not be read at all (the site then says so and lists nothing). */
  manifestProblem: string | null;
  entries: BuiltEntry[];
  files: string[];
  evidenceBytes: number;
}

const encoder = new TextEncoder();
/** Evidence smaller than this is not worth a compressed copy. */
const GZIP_MIN_BYTES = 4096;

/** gzip by the web-standard CompressionStream. */
async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Builds the site into `out`. @throws {GitError} when the repository or its default branch cannot be read. */
export async function buildSite(repo: GitRepo, out: SiteWriter, options: BuildSiteOptions): Promise<BuildSiteReport> {
  await repo.assertRepository();
  const branch = await repo.defaultBranch(options.branch);
  const files: string[] = [];
  const written = new Set<string>();
  let evidenceBytes = 0;
  const write = async (path: string, bytes: Uint8Array) => {
    if (written.has(path)) return;
    written.add(path);
    files.push(path);
    await out.write(path, bytes);
  };
  const store = async (bytes: Uint8Array, sha256?: string): Promise<string> => {
    const path = `evidence/sha256/${sha256 ?? await sha256Hex(bytes)}`;
    if (written.has(path)) return path;
    evidenceBytes += bytes.length;
    await write(path, bytes);
    // A gzip sibling for `site serve` (a static host compresses on its own); the browser hashes the bytes it
    // receives after decoding, so the check is the same either way.
    const packed = bytes.length >= GZIP_MIN_BYTES ? await gzip(bytes) : null;
    if (packed !== null && packed.length < bytes.length * 0.9) await write(`${path}.gz`, packed);
    return path;
  };

  const manifestBytes = await repo.readBlob(branch.commit, MANIFEST_PATH);
  let manifestProblem: string | null = null;
  let resolved: ResolvedEntry[] = [];
  if (manifestBytes === null) manifestProblem = `${MANIFEST_PATH} does not exist on ${branch.name}`;
  else {
    const read = readManifest(new TextDecoder().decode(manifestBytes));
    if (!read.ok) manifestProblem = `${MANIFEST_PATH} is malformed: ${read.problem}`;
    else {
      for (const entry of read.entries) resolved.push(await resolveEntry(repo, entry, branch, options.protocols));
    }
  }
  if (manifestProblem !== null) resolved = [];

  const taken = new Set<string>();
  const entries: BuiltEntry[] = [];
  const siteEntries: unknown[] = [];
  for (const entry of resolved) {
    const raw = entry.read.raw as { run_id?: unknown } | null;
    const runId = entry.read.entry?.run_id ?? (typeof raw?.run_id === "string" ? raw.run_id : null);
    const slug = slugFor(runId, entry.read.index, taken);
    const artifacts: Record<string, string | null> = {};
    for (const [path, file] of entry.artifacts) {
      artifacts[path] = file === null ? null : await store(file.bytes, file.sha256);
    }
    siteEntries.push({
      index: entry.read.index,
      slug,
      run_id: runId,
      results_folder: entry.read.entry === null ? null : folderOf(entry.read.entry.results_path),
      results: entry.results === null ? null : await store(entry.results.bytes, entry.results.sha256),
      artifacts,
      build_problems: entry.problems,
    });
    entries.push({ label: entry.read.label, slug, problems: entry.problems, contradictions: entry.contradictions });
    await write(`r/${slug}/index.html`, encoder.encode(resultPage(slug, runId ?? entry.read.label)));
  }

  const site = {
    format: SITE_FORMAT,
    schema_version: SITE_SCHEMA_VERSION,
    built_from: {
      branch: branch.name,
      commit: branch.commit,
      manifest_path: MANIFEST_PATH,
      manifest_sha256: manifestBytes === null ? null : await sha256Hex(manifestBytes),
    },
    manifest_problem: manifestProblem,
    entries: siteEntries,
  };
  await write("data/site.json", encoder.encode(`${JSON.stringify(site, null, 1)}\n`));
  await write("data/approved.json", manifestBytes ?? encoder.encode("null\n"));
  await write(
    "data/protocols.json",
    options.protocolDeclarations ??
      encoder.encode(`${JSON.stringify({ format: PROTOCOLS_FORMAT, schema_version: 1, protocols: [] })}\n`),
  );
  for (const name of WEB_FILES) await write(`assets/${name}`, await options.readWebFile(name));
  await write("index.html", encoder.encode(indexPage()));
  // GitHub Pages runs Jekyll unless told not to, and Jekyll drops files it considers private.
  await write(".nojekyll", new Uint8Array());
  return { branch, manifestProblem, entries, files, evidenceBytes };
}
