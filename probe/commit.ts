/**
 * This toolkit's own commit, read without a git process: .git/HEAD -> ref -> loose ref or packed-refs (detached
 * HEAD, worktrees and `.git` files included), or the COMMIT file a release binary carries.
 */
import type { MissingMap, Outcome } from "./_deps.ts";

/** What readRunnerCommit needs. */
export interface CommitDeps {
  readText(path: string): Promise<Outcome<string>>;
  stat(path: string): Promise<Outcome<{ isFile: boolean; isDirectory: boolean }>>;
}

/** Where to look. */
export interface RunnerCommitOptions {
  /** The toolkit's root folder (the one holding mod.ts, and .git in a source checkout). */
  toolkitDir: string | null;
  /** Folder of the running executable (a compiled strata-bench keeps its COMMIT file there). */
  executableDir?: string | null;
}

/** The runner commit and build kind, with reasons for what is unknown. */
export interface RunnerCommit {
  runnerCommit: string | null;
  buildKind: "source" | "release" | null;
  /** Where the commit was read: ".git", "COMMIT", or null. */
  source: ".git" | "COMMIT" | null;
  /** /software/runner_commit and /software/build_kind -> reason. */
  missing: MissingMap;
}

const FULL_ID = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

function join(dir: string, name: string): string {
  return dir.endsWith("/") || dir.endsWith("\\") ? `${dir}${name}` : `${dir}/${name}`;
}

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/** Resolves a ref name (refs/heads/main) to a full commit in a git folder, following symbolic refs. */
async function resolveRef(
  gitDir: string,
  commonDir: string,
  ref: string,
  deps: CommitDeps,
  depth = 0,
): Promise<Outcome<string>> {
  if (depth > 5) return { ok: false, kind: "failed", reason: `the git ref ${ref} is a loop of symbolic refs` };
  for (const dir of gitDir === commonDir ? [gitDir] : [gitDir, commonDir]) {
    const loose = await deps.readText(join(dir, ref));
    if (loose.ok) {
      const text = loose.value.trim();
      if (FULL_ID.test(text)) return { ok: true, value: text };
      const symbolic = /^ref:\s*(\S+)$/.exec(text)?.[1];
      if (symbolic) return resolveRef(gitDir, commonDir, symbolic, deps, depth + 1);
    } else if (loose.kind === "permission") return loose;
  }
  const packed = await deps.readText(join(commonDir, "packed-refs"));
  if (packed.ok) {
    for (const line of packed.value.split(/\r?\n/)) {
      if (line.startsWith("#") || line.startsWith("^")) continue;
      const [id, name] = line.trim().split(/\s+/);
      if (name === ref && id && FULL_ID.test(id)) return { ok: true, value: id };
    }
  } else if (packed.kind === "permission") return packed;
  return {
    ok: false,
    kind: "not_found",
    reason: `the git ref ${ref} has no commit yet (no loose ref, not in packed-refs)`,
  };
}

/** The git folder of a checkout (its .git folder, or a .git file's gitdir) and the common one its commondir names. */
export async function gitFolders(
  checkoutDir: string,
  deps: CommitDeps,
): Promise<Outcome<{ gitDir: string; commonDir: string }>> {
  const dotGit = join(checkoutDir, ".git");
  const facts = await deps.stat(dotGit);
  if (!facts.ok) return facts;
  let gitDir = dotGit;
  if (facts.value.isFile) {
    const pointer = await deps.readText(dotGit);
    if (!pointer.ok) return pointer;
    const target = /^gitdir:\s*(.+)$/m.exec(pointer.value)?.[1]?.trim();
    if (!target) return { ok: false, kind: "failed", reason: "the .git file has no gitdir line" };
    gitDir = isAbsolute(target) ? target : join(checkoutDir, target);
  }
  let commonDir = gitDir;
  const common = await deps.readText(join(gitDir, "commondir"));
  if (common.ok && common.value.trim() !== "") {
    const target = common.value.trim();
    commonDir = isAbsolute(target) ? target : join(gitDir, target);
  }
  return { ok: true, value: { gitDir, commonDir } };
}

/** Reads the commit of a source checkout whose root is `checkoutDir`. */
export async function readGitHead(checkoutDir: string, deps: CommitDeps): Promise<Outcome<string>> {
  const folders = await gitFolders(checkoutDir, deps);
  if (!folders.ok) return folders;
  const { gitDir, commonDir } = folders.value;
  const head = await deps.readText(join(gitDir, "HEAD"));
  if (!head.ok) return head;
  const text = head.value.trim();
  if (FULL_ID.test(text)) return { ok: true, value: text };
  const ref = /^ref:\s*(\S+)$/.exec(text)?.[1];
  if (!ref) return { ok: false, kind: "failed", reason: "the git HEAD file holds neither a commit nor a ref" };
  return resolveRef(gitDir, commonDir, ref, deps);
}

let bakedCommit: string | null = null;

/**
 * Records the commit a release build wrote into the executable (the COMMIT file, carried inside the binary).
 * A compiled strata-bench calls this once at start; readRunnerCommit then reports it with build kind "release".
 * @throws {RangeError} when `commit` is not a full 40- or 64-digit lowercase hex id.
 */
export function bakeRunnerCommit(commit: string): void {
  if (!FULL_ID.test(commit)) {
    throw new RangeError(`Cannot bake the runner commit: "${commit}" is not a full lowercase commit id`);
  }
  bakedCommit = commit;
}

/**
 * The toolkit's commit: baked into a compiled binary (build kind "release"), else from its .git (build kind
 * "source") or a COMMIT file beside the executable or in the toolkit folder (build kind "release"). None of them
 * gives nulls with reasons; the run is then nonconforming.
 */
export async function readRunnerCommit(options: RunnerCommitOptions, deps: CommitDeps): Promise<RunnerCommit> {
  if (bakedCommit !== null) return { runnerCommit: bakedCommit, buildKind: "release", source: "COMMIT", missing: {} };
  const problems: string[] = [];
  if (options.toolkitDir) {
    const dotGit = await deps.stat(join(options.toolkitDir, ".git"));
    if (dotGit.ok) {
      const head = await readGitHead(options.toolkitDir, deps);
      if (head.ok) return { runnerCommit: head.value, buildKind: "source", source: ".git", missing: {} };
      return {
        runnerCommit: null,
        buildKind: "source",
        source: null,
        missing: { "/software/runner_commit": `the toolkit's .git gives no commit: ${head.reason}` },
      };
    }
    problems.push(dotGit.kind === "not_found" ? "the toolkit folder has no .git" : dotGit.reason);
  } else {
    problems.push("the toolkit folder is unknown");
  }
  const dirs = [options.executableDir, options.toolkitDir].filter((d): d is string => Boolean(d));
  for (const dir of dirs) {
    const file = await deps.readText(join(dir, "COMMIT"));
    if (file.ok) {
      const id = file.value.trim().toLowerCase();
      if (FULL_ID.test(id)) return { runnerCommit: id, buildKind: "release", source: "COMMIT", missing: {} };
      problems.push("the COMMIT file does not hold a full commit id");
    } else {
      problems.push(file.kind === "not_found" ? "no COMMIT file beside the executable" : file.reason);
    }
  }
  const reason = `no commit: ${[...new Set(problems)].join("; ")}`;
  return {
    runnerCommit: null,
    buildKind: null,
    source: null,
    missing: { "/software/runner_commit": reason, "/software/build_kind": reason },
  };
}

let bakedVersion: string | null = null;

/** Records the toolkit version a release build wrote into the executable (package.json's, at compile time). */
export function bakeToolkitVersion(version: string): void {
  bakedVersion = version;
}

/**
 * This toolkit's version: baked into a compiled binary, else package.json's `version` in the toolkit folder; null
 * when neither can be read.
 */
export async function readToolkitVersion(toolkitDir: string | null, deps: Pick<CommitDeps, "readText">): Promise<
  string | null
> {
  if (bakedVersion !== null) return bakedVersion;
  if (toolkitDir === null) return null;
  const text = await deps.readText(join(toolkitDir, "package.json"));
  if (!text.ok) return null;
  try {
    const version = (JSON.parse(text.value) as { version?: unknown }).version;
    return typeof version === "string" && version !== "" ? version : null;
  } catch {
    return null;
  }
}
