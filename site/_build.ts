/**
 * `site build`: reads bench/approved.json on the repository's default branch, resolves every entry's results.json
 * and artifacts at its evidence_commit from the git object store, and writes a static site: index.html, one page
 * per entry, the browser code, data/ (the manifest's exact bytes, the build's map of where each file lies) and
 * evidence/sha256/<hash> (each evidence file once, named by its SHA-256), so the browser fetches exactly the
 * reviewed bytes and checks them itself. Nothing runs on the server at view time.
 */
import type { GitRepo } from "./_git.ts";
import { refusalsOf, type Reviewer } from "./_approved.ts";
import {
  EvidenceReader,
  folderOf,
  type KnownProtocol,
  type ReadEntry,
  type ResolvedEntry,
  resolveEntry,
} from "./_entries.ts";
import { indexPage, resultPage, slugFor, WEB_FILES } from "./_pages.ts";
import { MANIFEST_PATH, PROTOCOLS_FORMAT, readManifest, sha256Hex } from "./web/mod.js";

const SITE_FORMAT = "strata-site";
const BUNDLE_MANIFEST = "MANIFEST.sha256";
const SITE_SCHEMA_VERSION = 1;

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
  /**
   * Reads one file of the frozen request bundle (MANIFEST.sha256 and the files it lists), copied to
   * data/bundle/<corpus SHA-256>/: the browser rebuilds each request sent by reference from it.
   */
  readBundleFile(name: string): Promise<Uint8Array | null>;
  /**
   * A throwaway site of the scripted engine's demo result: every page says SIMULATED, the data says so too.
   * Nothing in buildSite makes an entry approvable; this only labels the pages.
   */
  simulated?: boolean;
  /** Called after each entry is resolved and written (`done` of `total`), for a progress line. */
  onProgress?(done: number, total: number): void;
  /**
   * The review every entry must pass (review/'s conductor, as `approved verify` runs it). A refused entry is
   * published without its evidence, listed with the refusals (judge and reason) as unverifiable.
   */
  review?: Reviewer;
}

/** What the build found for one entry. */
export interface BuiltEntry {
  label: string;
  slug: string;
  /** Why the site shows the entry as unverifiable. */
  problems: string[];
  /** Evidence that contradicts the review; the browser shows the entry as verification failed. */
  contradictions: string[];
  /** What the review refused (each names the judge, the folder and the rule); the entry's evidence is left out. */
  refusals: string[];
}

/** The outcome of `site build`. */
export interface BuildSiteReport {
  branch: { name: string; commit: string };
  /** Why the manifest could not be read at all (the site then says so and lists nothing). */
  manifestProblem: string | null;
  entries: BuiltEntry[];
  files: string[];
  evidenceBytes: number;
  /** Bytes of the shared packs (the same files again, one request for several entries in the browser). */
  packBytes: number;
}

const encoder = new TextEncoder();
/** Evidence smaller than this is not worth a compressed copy. */
const GZIP_MIN_BYTES = 4096;

/** gzip by the web-standard CompressionStream. */
async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * Files stored or packed last whose bytes a pack may still take: an entry's own files are stored just before its
 * pack, and a file many entries share (a template) is packed again each time, so it stays.
 */
const RECENT_FILES = 64;

/**
 * Where an entry's evidence files lie in a pack: the pack's location, how it is encoded (gzip: files end to end once
 * decompressed), its decompressed size, and each of the entry's files with its [offset, length] in those bytes.
 */
export interface EvidencePack {
  location: string;
  encoding: "gzip";
  size: number;
  files: Record<string, [number, number]>;
}

/**
 * A pack closes once it holds this many bytes or entries: a browser's request costs about as much CPU as checking a
 * third of an entry (bench:site: 200 packs fetched with 3.9 s of CPU across browser, network service, renderer and
 * server, the same bytes in 13 requests with 1.2 s), while a result page fetches its whole pack for one entry.
 */
const PACK_BYTES = 8 * 1024 * 1024;
const PACK_ENTRIES = 16;

/** The pack being filled: its files' bytes, where each lies, and the entries that point into it. */
interface OpenPack {
  parts: Uint8Array[];
  offsets: Map<string, number>;
  size: number;
  entries: EvidencePack[];
}

/**
 * Writes a pack once (its bytes compressed; none when `stored` has it) and tells its entries where it lies.
 * @returns the bytes written.
 */
async function writePack(
  { parts, size, entries }: OpenPack,
  stored: Set<string>,
  write: (path: string, bytes: Uint8Array) => Promise<void>,
): Promise<number> {
  const joined = new Uint8Array(size);
  parts.reduce((at, part) => (joined.set(part, at), at + part.length), 0);
  const location = `evidence/sha256/${await sha256Hex(joined)}.gz`;
  for (const entry of entries) Object.assign(entry, { location, size });
  if (stored.has(location)) return 0;
  stored.add(location);
  const packed = await gzip(joined);
  await write(location, packed);
  return packed.length;
}

/**
 * The evidence store of a build: each file once under evidence/sha256/<hash>, with a gzip sibling where it pays,
 * and packs (the files of several consecutive entries end to end, gzip-compressed, stored as
 * evidence/sha256/<hash of the files>.gz) that a browser fetches in one request instead of one per file. A pack is
 * transport only: the browser decompresses it itself and hashes every file it cuts from it. Compressed, because a
 * browser's loader costs per byte: Chromium took 50-60 ms to fetch a 1.1 MB pack and 17 ms for the same pack as
 * 54 KB of gzip decompressed by the page (bench:site's entries, 40 at once, on this project's 2-core machine). An
 * entry's pack location and size are known once its pack closes (`finish` closes the last).
 */
function evidenceStore(write: (path: string, bytes: Uint8Array) => Promise<void>) {
  const stored = new Set<string>();
  const recent = new Map<string, Uint8Array>();
  const packs = new Map<string, EvidencePack>();
  let open: OpenPack | null = null;
  let bytesStored = 0;
  let packBytes = 0;
  const keep = (sha256: string, bytes: Uint8Array) => {
    recent.delete(sha256);
    recent.set(sha256, bytes);
    if (recent.size > RECENT_FILES) recent.delete(recent.keys().next().value as string);
  };
  /** Writes a file once, with a gzip sibling where it pays. */
  const put = async (sha256: string, bytes: Uint8Array): Promise<boolean> => {
    const path = `evidence/sha256/${sha256}`;
    if (stored.has(path)) return false;
    stored.add(path);
    await write(path, bytes);
    // A gzip sibling for `site serve` (a static host compresses on its own); the browser hashes the bytes it
    // receives after decoding, so the check is the same either way.
    const packed = bytes.length >= GZIP_MIN_BYTES ? await gzip(bytes) : null;
    if (packed !== null && packed.length < bytes.length * 0.9) await write(`${path}.gz`, packed);
    return true;
  };
  const close = async () => {
    const full = open;
    open = null;
    if (full !== null) packBytes += await writePack(full, stored, write);
  };
  return {
    async store(sha256: string, bytes: Uint8Array): Promise<void> {
      keep(sha256, bytes);
      if (await put(sha256, bytes)) bytesStored += bytes.length;
    },
    /** Where the files among `sha256s` whose bytes are still at hand go in a pack; null when fewer than two are. */
    async pack(sha256s: readonly string[]): Promise<EvidencePack | null> {
      // One result listed by many entries is packed once.
      const key = [...new Set(sha256s)].join(" ");
      const earlier = packs.get(key);
      if (earlier !== undefined) return earlier;
      const held = [...new Set(sha256s)].flatMap((sha256) => {
        const bytes = recent.get(sha256);
        return bytes === undefined ? [] : [[sha256, bytes] as const];
      });
      if (held.length < 2) return null;
      // A large entry starts a pack of its own: the entries before it do not carry its bytes.
      const adding = held.reduce((sum, [, bytes]) => sum + bytes.length, 0);
      if (open !== null && open.size + adding > PACK_BYTES) await close();
      const into: OpenPack = open ??= { parts: [], offsets: new Map(), size: 0, entries: [] };
      const files: Record<string, [number, number]> = {};
      for (const [sha256, bytes] of held) {
        keep(sha256, bytes);
        let offset = into.offsets.get(sha256);
        if (offset === undefined) {
          into.offsets.set(sha256, offset = into.size);
          into.parts.push(bytes);
          into.size += bytes.length;
        }
        files[`evidence/sha256/${sha256}`] = [offset, bytes.length];
      }
      const pack: EvidencePack = { location: "", encoding: "gzip", size: 0, files };
      into.entries.push(pack);
      packs.set(key, pack);
      if (packs.size > RECENT_FILES) packs.delete(packs.keys().next().value as string);
      if (into.size >= PACK_BYTES || into.entries.length >= PACK_ENTRIES) await close();
      return pack;
    },
    /** Closes the last pack; every pack returned so far then says where it lies. */
    finish: close,
    get bytes(): number {
      return bytesStored;
    },
    get packBytes(): number {
      return packBytes;
    },
  };
}

/** The branch has no manifest: there is nothing to build a site from. */
export class ManifestMissingError extends Error {}

/**
 * The manifest's entries as read on the branch, or why none can be listed.
 * @throws {ManifestMissingError} when the branch has no manifest.
 */
async function manifestEntries(repo: GitRepo, branch: { name: string; commit: string }) {
  const bytes = await repo.readBlob(branch.commit, MANIFEST_PATH);
  if (bytes === null) {
    throw new ManifestMissingError(
      `Cannot build the site: ${MANIFEST_PATH} does not exist on ${branch.name} (${branch.commit.slice(0, 12)}). ` +
        `A site lists the entries of the approved manifest: add one with "strata-bench approved add", name the ` +
        `results repository with --repo, or its default branch with --branch.`,
    );
  }
  const read = readManifest(new TextDecoder().decode(bytes));
  if (!read.ok) return { bytes, problem: `${MANIFEST_PATH} is malformed: ${read.problem}`, entries: [] };
  return { bytes, problem: null, entries: read.entries };
}

/**
 * Builds the site into `out`. Entries are resolved and written one at a time, and only their hashes and paths are
 * kept, so memory does not grow with the evidence; each distinct file is read, hashed and written once.
 * @throws {GitError} when the repository or its default branch cannot be read.
 * @throws {ManifestMissingError} when the branch has no manifest (nothing is written).
 */
export async function buildSite(repo: GitRepo, out: SiteWriter, options: BuildSiteOptions): Promise<BuildSiteReport> {
  await repo.assertRepository();
  const branch = await repo.defaultBranch(options.branch);
  const files: string[] = [];
  const written = new Set<string>();
  const write = async (path: string, bytes: Uint8Array) => {
    if (written.has(path)) return;
    written.add(path);
    files.push(path);
    await out.write(path, bytes);
  };
  const manifest = await manifestEntries(repo, branch);
  const evidence = evidenceStore(write);
  const reader = new EvidenceReader(repo, (sha256, bytes) => evidence.store(sha256, bytes));
  const unpublished = new EvidenceReader(repo);
  const taken = new Set<string>();
  const entries: BuiltEntry[] = [];
  const siteEntries: unknown[] = [];
  for (const read of manifest.entries) {
    const built = await buildEntry(repo, read, branch, options, { reader, unpublished, evidence }, taken, write);
    entries.push(built.entry);
    siteEntries.push(built.site);
    options.onProgress?.(entries.length, manifest.entries.length);
  }
  await evidence.finish();
  const web = await Promise.all(WEB_FILES.map(async (name) => [name, await options.readWebFile(name)] as const));
  const site = {
    format: SITE_FORMAT,
    schema_version: SITE_SCHEMA_VERSION,
    simulated: options.simulated === true,
    // The browser remembers a verified verdict under the code that reached it: new code checks afresh.
    checker_sha256: await sha256Hex(
      encoder.encode(JSON.stringify(await Promise.all(web.map(async ([n, b]) => [n, await sha256Hex(b)])))),
    ),
    built_from: {
      branch: branch.name,
      commit: branch.commit,
      manifest_path: MANIFEST_PATH,
      manifest_sha256: await sha256Hex(manifest.bytes),
    },
    manifest_problem: manifest.problem,
    entries: siteEntries,
  };
  await write("data/site.json", encoder.encode(`${JSON.stringify(site, null, 1)}\n`));
  await write("data/approved.json", manifest.bytes);
  await write(
    "data/protocols.json",
    options.protocolDeclarations ??
      encoder.encode(`${JSON.stringify({ format: PROTOCOLS_FORMAT, schema_version: 1, protocols: [] })}\n`),
  );
  for (const [name, bytes] of web) await write(`assets/${name}`, bytes);
  await writeBundle(options.readBundleFile, write);
  await write("index.html", encoder.encode(indexPage(options.simulated)));
  // GitHub Pages runs Jekyll unless told not to, and Jekyll drops files it considers private.
  await write(".nojekyll", new Uint8Array());
  return {
    branch,
    manifestProblem: manifest.problem,
    entries,
    files,
    evidenceBytes: evidence.bytes,
    packBytes: evidence.packBytes,
  };
}

/**
 * The frozen bundle under data/bundle/<SHA-256 of its manifest>/, as the browser fetches it (once per visit).
 * @throws {Error} when the manifest or a file it lists cannot be read (the site would verify no entry).
 */
async function writeBundle(
  read: BuildSiteOptions["readBundleFile"],
  write: (path: string, bytes: Uint8Array) => Promise<void>,
): Promise<void> {
  const manifest = await read(BUNDLE_MANIFEST);
  if (manifest === null) throw new Error(`the frozen bundle's ${BUNDLE_MANIFEST} cannot be read`);
  const dir = `data/bundle/${await sha256Hex(manifest)}`;
  await write(`${dir}/${BUNDLE_MANIFEST}`, manifest);
  for (const line of new TextDecoder().decode(manifest).split("\n")) {
    const file = / {2}([A-Za-z0-9._-]+)$/.exec(line)?.[1];
    if (file === undefined) continue;
    const bytes = await read(file);
    if (bytes === null) throw new Error(`the frozen bundle's ${file} cannot be read`);
    await write(`${dir}/${file}`, bytes);
  }
}

/**
 * Resolves one entry, writes its page, and returns what the site keeps. Its evidence is written through `reader`
 * once the review (when there is one) accepts it; a refused entry is read through `unpublished`, which writes nothing.
 */
async function buildEntry(
  repo: GitRepo,
  read: ReadEntry,
  branch: { name: string; commit: string },
  options: BuildSiteOptions,
  { reader, unpublished, evidence }: {
    reader: EvidenceReader;
    unpublished: EvidenceReader;
    evidence: ReturnType<typeof evidenceStore>;
  },
  taken: Set<string>,
  write: (path: string, bytes: Uint8Array) => Promise<void>,
): Promise<{ entry: BuiltEntry; site: unknown }> {
  const reviewed = options.review === undefined
    ? null
    : await resolveEntry(repo, read, branch, options.protocols, unpublished);
  const refusals = reviewed === null || options.review === undefined
    ? []
    : await refusalsOf(repo, reviewed, options.review);
  const resolved: ResolvedEntry = reviewed !== null && refusals.length > 0
    ? { ...reviewed, results: null, artifacts: new Map(), problems: refusals.map((r) => `refused by the review: ${r}`) }
    : await resolveEntry(repo, read, branch, options.protocols, reader);
  const raw = read.raw as { run_id?: unknown } | null;
  const runId = read.entry?.run_id ?? (typeof raw?.run_id === "string" ? raw.run_id : null);
  const slug = slugFor(runId, read.index, taken);
  const artifacts: Record<string, string | null> = {};
  for (const [path, sha256] of resolved.artifacts) {
    artifacts[path] = sha256 === null ? null : `evidence/sha256/${sha256}`;
  }
  await write(`r/${slug}/index.html`, encoder.encode(resultPage(slug, runId ?? read.label, options.simulated)));
  const shas = [resolved.results?.sha256, ...resolved.artifacts.values()].filter((h) => typeof h === "string");
  const pack = resolved.problems.length === 0 ? await evidence.pack(shas) : null;
  // The folder's files at the commit, so the browser holds the folder to "its listed files plus README.md".
  const folder = read.entry === null ? null : folderOf(read.entry.results_path);
  const listing = folder === null || resolved.problems.length > 0
    ? null
    : [...(await repo.blobIds(read.entry!.evidence_commit, folder)).keys()].map((p) => p.slice(folder.length + 1));
  return {
    entry: {
      label: read.label,
      slug,
      problems: refusals.length > 0 ? [] : resolved.problems,
      contradictions: resolved.contradictions,
      refusals,
    },
    site: {
      index: read.index,
      slug,
      run_id: runId,
      results_folder: folder,
      folder_files: listing,
      results: resolved.results === null ? null : `evidence/sha256/${resolved.results.sha256}`,
      artifacts,
      pack,
      build_problems: resolved.problems,
    },
  };
}
