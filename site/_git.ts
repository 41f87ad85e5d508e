/**
 * Reads a results repository through the `git` command: commits, blobs at a commit (bytes, never re-encoded),
 * ancestry and the commits that touched a folder. The command runner is a parameter, so tests and the CLI wire
 * the real one (site/_deps.ts) and nothing here names the runtime.
 */

/** What a git invocation returned. */
export interface GitOutput {
  code: number;
  stdout: Uint8Array;
  stderr: string;
}

/** Runs `git args...` in the repository folder; `null` output means git could not be started (with why). */
export type GitRunner = (args: readonly string[]) => Promise<GitOutput | { error: string }>;

/** A git failure the caller cannot work around (git missing, not a repository). */
export class GitError extends Error {
  override readonly name = "GitError";
}

const decoder = new TextDecoder();

/**
 * A results repository read through git. Answers are kept for the life of the object, a branch head included: one
 * GitRepo per command (they cannot change during one); after a commit, read through a new one.
 */
export class GitRepo {
  readonly #run: GitRunner;
  readonly #commits = new Map<string, Promise<string | null>>();
  readonly #ancestors = new Map<string, Promise<boolean>>();
  readonly #touched = new Map<string, Promise<boolean>>();
  readonly #trees = new Map<string, Promise<Map<string, string>>>();
  #shallow: Promise<boolean> | null = null;

  constructor(run: GitRunner) {
    this.#run = run;
  }

  async #git(args: readonly string[]): Promise<GitOutput> {
    const out = await this.#run(args);
    if ("error" in out) throw new GitError(`Cannot run git ${args[0] ?? ""}: ${out.error}`);
    return out;
  }

  async #text(args: readonly string[]): Promise<string | null> {
    const out = await this.#git(args);
    return out.code === 0 ? decoder.decode(out.stdout).trim() : null;
  }

  /**
   * Checks that the folder is a git repository.
   * @throws {GitError} when it is not, or git cannot run.
   */
  async assertRepository(): Promise<void> {
    const out = await this.#git(["rev-parse", "--git-dir"]);
    if (out.code !== 0) {
      throw new GitError(`Cannot read the repository: ${out.stderr.trim() || "not a git repository"}`);
    }
  }

  /**
   * The default branch: `branch` when given, else what origin/HEAD points at, else main, else master.
   * @throws {GitError} when none of them exists.
   */
  async defaultBranch(branch?: string): Promise<{ name: string; commit: string }> {
    const candidates: string[] = [];
    if (branch !== undefined) candidates.push(branch);
    else {
      const origin = await this.#text(["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"]);
      if (origin) candidates.push(origin);
      candidates.push("main", "master");
    }
    for (const name of candidates) {
      const commit = await this.resolveCommit(name);
      if (commit !== null) return { name, commit };
    }
    throw new GitError(
      branch === undefined
        ? "Cannot tell the default branch: no origin/HEAD, main or master; pass --branch NAME"
        : `Cannot find branch "${branch}" in the repository`,
    );
  }

  /** Memoized `compute` under `key` (a rejected promise is not kept). */
  #once<T>(cache: Map<string, Promise<T>>, key: string, compute: () => Promise<T>): Promise<T> {
    let value = cache.get(key);
    if (value === undefined) {
      value = compute();
      cache.set(key, value);
      value.catch(() => cache.delete(key));
    }
    return value;
  }

  /** The full id of the commit `rev` names, or null when it names no commit. */
  resolveCommit(rev: string): Promise<string | null> {
    if (rev.startsWith("-")) return Promise.resolve(null);
    return this.#once(
      this.#commits,
      rev,
      () => this.#text(["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`]),
    );
  }

  /** The bytes of `path` at `commit`, or null when the commit has no such file (or it is no file). */
  async readBlob(commit: string, path: string): Promise<Uint8Array | null> {
    const out = await this.#git(["cat-file", "blob", `${commit}:${path}`]);
    return out.code === 0 ? out.stdout : null;
  }

  /**
   * Every file below `folder` at `commit`, by repository-relative path, with its blob id (one `git ls-tree` per
   * commit and folder): identical bytes have one blob id, so a reader hashes each once.
   */
  blobIds(commit: string, folder: string): Promise<Map<string, string>> {
    return this.#once(this.#trees, `${commit}\0${folder}`, async () => {
      const out = await this.#git(["ls-tree", "-r", "-z", "--full-tree", commit, "--", `${folder}/`]);
      const ids = new Map<string, string>();
      if (out.code !== 0) return ids;
      for (const line of decoder.decode(out.stdout).split("\0")) {
        const match = /^[0-7]+ blob ([0-9a-f]{40,64})\t(.+)$/s.exec(line);
        if (match !== null) ids.set(match[2]!, match[1]!);
      }
      return ids;
    });
  }

  /** The bytes of a blob by its id, or null when there is no such blob. */
  async readObject(oid: string): Promise<Uint8Array | null> {
    if (!/^[0-9a-f]{40,64}$/.test(oid)) return null;
    const out = await this.#git(["cat-file", "blob", oid]);
    return out.code === 0 ? out.stdout : null;
  }

  /** Whether `ancestor` is in the history of `descendant` (a commit is its own ancestor). */
  isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    return this.#once(this.#ancestors, `${ancestor} ${descendant}`, async () => {
      const out = await this.#git(["merge-base", "--is-ancestor", ancestor, descendant]);
      return out.code === 0;
    });
  }

  /** Whether `commit` adds or changes a file under `folder` (compared with its first parent). */
  touches(commit: string, folder: string): Promise<boolean> {
    return this.#once(this.#touched, `${commit}\0${folder}`, async () => {
      const listed = await this.#text([
        "diff-tree",
        "--no-commit-id",
        "--name-only",
        "-r",
        "--root",
        "-m",
        "--first-parent",
        commit,
        "--",
        folder,
      ]);
      return listed !== null && listed !== "";
    });
  }

  /** Whether the repository is a shallow clone (its history is cut: older commits and ancestry are not there). */
  isShallow(): Promise<boolean> {
    this.#shallow ??= this.#text(["rev-parse", "--is-shallow-repository"]).then((answer) => answer === "true");
    return this.#shallow;
  }

  /** Commits of `branch` that touch `folder`, newest first. */
  async commitsTouching(branch: string, folder: string): Promise<string[]> {
    const listed = await this.#text(["log", "--format=%H", branch, "--", folder]);
    return listed === null || listed === "" ? [] : listed.split("\n");
  }

  /** The newest commit of `branch` that added `path`, or null. */
  async commitAdding(branch: string, path: string): Promise<string | null> {
    const listed = await this.#text(["log", "-1", "--diff-filter=A", "--format=%H", branch, "--", path]);
    return listed === null || listed === "" ? null : listed;
  }

  /** Whether `path` has changes in the working tree or the index compared with HEAD. */
  async isDirty(path: string): Promise<boolean> {
    const listed = await this.#text(["status", "--porcelain", "--", path]);
    return listed !== null && listed !== "";
  }
}
