/**
 * The clone side of `submit`: the checks before anything is written (a results repository's root, clean, no folder
 * or branch of that name yet), the new branch and how to undo it, the byte-exact copy of a result folder (regular
 * files only, never through a link), and the pull request body beside the clone's git data.
 */
import { openFolderWriter, openSafeFolder } from "../runtime/mod.ts";

/**
 * Why submit stops: a refused folder ("SubmitRefused", exit 1), a clone or tool that cannot take it
 * ("SubmitUnusable", exit 3), or a signal ("SubmitInterrupted", exit 4); cli/exit_codes.ts maps the names.
 */
export class SubmitRefusal extends Error {
  constructor(message: string, kind: "refused" | "environment" | "interrupted" = "refused") {
    super(message);
    this.name = kind === "environment"
      ? "SubmitUnusable"
      : kind === "interrupted"
      ? "SubmitInterrupted"
      : "SubmitRefused";
  }
}

/** One git call in the clone: its exit code and trimmed text. */
export type GitRun = (args: readonly string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

/** A result folder's name as a path component of bench/results/: plain, no dot first, no separator. */
const FOLDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** What prepareBranch leaves to do: undo it all, or write the body once the commit is made. */
export interface PreparedBranch {
  /**
   * Puts the clone back, whatever step failed (the commit included): the previous branch checked out, the new one
   * deleted, the folder's files (ignored ones too) and a bench/results/ that was not there before removed, the lock
   * released.
   */
  undo(): Promise<void>;
  /** Writes the pull request body into the clone's git folder; returns its path. */
  writeBody(body: string): Promise<string>;
  /** Releases the clone's submit lock (after success). */
  release(): Promise<void>;
}

/** What the clone's git and file system say, for the checks of prepareBranch. */
export interface CloneFacts {
  git: GitRun;
  /** Whether a name exists at this clone-relative path (anything: a file, a folder, a link, an ignored file). */
  exists(relativePath: string): Promise<boolean>;
  /** The clone's real path. */
  realRoot: string;
}

/** The lock file in the clone's git folder that keeps two submits apart. */
const LOCK = "strata-bench-submit.lock";

async function must(git: GitRun, args: readonly string[], why: (stderr: string) => string): Promise<string> {
  const out = await git(args);
  if (out.code !== 0) throw new SubmitRefusal(why(out.stderr || out.stdout), "environment");
  return out.stdout;
}

/** Refuses a branch name git would read as an option or as another ref (`@`, `refs/...`, a remote's name). */
async function checkBranch(git: GitRun, branch: string, refuse: (why: string) => SubmitRefusal): Promise<void> {
  const plain = !branch.startsWith("-") && !branch.startsWith("refs/") && branch.length <= 100;
  if (!plain || (await git(["check-ref-format", "--branch", branch])).code !== 0) {
    throw refuse(`"${branch.slice(0, 100)}" is no valid branch name here; pass another with --branch`);
  }
  if ((await git(["rev-parse", "--verify", "--quiet", branch])).code === 0) {
    throw refuse(`"${branch}" names an existing branch or commit already; pass another with --branch`);
  }
}

/**
 * The checks that need no lock, each a refusal that changes nothing: a plain folder name, the clone's root (not a
 * folder inside a work tree, not a linked worktree), a committed bench/approved.json, a new plain branch name.
 * Returns the clone's git folder.
 */
async function checkClone(
  clone: CloneFacts,
  name: string,
  branch: string,
  refuse: (why: string) => SubmitRefusal,
): Promise<string> {
  const { git } = clone;
  if (!FOLDER_NAME.test(name)) {
    throw new SubmitRefusal(
      `Cannot submit a folder named "${name}": rename it to letters, digits, ".", "_" and "-", starting with a ` +
        "letter or digit",
    );
  }
  const toplevel = await git(["rev-parse", "--show-toplevel"]);
  if (toplevel.code !== 0) throw refuse(`it is no git clone (${toplevel.stderr || toplevel.stdout})`);
  const top = toplevel.stdout;
  const here = await must(git, ["rev-parse", "--show-prefix"], (e) => e);
  if (here !== "") throw refuse(`it is a folder inside the clone at "${top}"; pass the clone's root as --repo`);
  const gitDir = await must(git, ["rev-parse", "--absolute-git-dir"], (e) => e);
  if (gitDir !== `${clone.realRoot}/.git`) {
    throw refuse(
      "its git folder is not its own .git (a linked worktree, or .git elsewhere); submit from the main clone",
    );
  }
  const listed = await git(["ls-files", "--error-unmatch", "bench/approved.json"]);
  if (listed.code !== 0) {
    throw refuse(
      "it has no committed bench/approved.json, so it is no results repository; clone the results repository",
    );
  }
  await checkBranch(git, branch, refuse);
  return gitDir;
}

/**
 * Checks the clone (checkClone), takes its lock, checks that nothing is uncommitted and nothing at all is at
 * bench/results/<name> (an ignored file included), and creates the branch.
 * @throws {SubmitRefusal} naming what is wrong; nothing is changed then (the lock released).
 */
export async function prepareBranch(
  clone: CloneFacts,
  repo: string,
  name: string,
  branch: string,
): Promise<PreparedBranch> {
  const { git } = clone;
  const refuse = (why: string) => new SubmitRefusal(`Cannot submit into "${repo}": ${why}`, "environment");
  const gitDir = await checkClone(clone, name, branch, refuse);
  const lockWriter = await openFolderWriter(gitDir, { refuseLink: true });
  try {
    await (await lockWriter.create(LOCK)).close();
  } catch {
    throw refuse(`another submit holds it (or one was killed: remove .git/${LOCK})`);
  }
  const unlock = () => lockWriter.remove(LOCK).catch(() => {});
  try {
    const dirty = await must(git, ["status", "--porcelain", "--untracked-files=all"], (e) => e);
    if (dirty !== "") throw refuse("it has uncommitted changes; commit or stash them first");
    if (await clone.exists(`bench/results/${name}`)) {
      throw refuse(`bench/results/${name} is there already (committed, or ignored by git); a folder is never replaced`);
    }
  } catch (error) {
    await unlock();
    throw error;
  }
  const resultsExisted = await clone.exists("bench/results");
  const previous = (await git(["symbolic-ref", "--quiet", "--short", "HEAD"])).stdout ||
    (await git(["rev-parse", "HEAD"])).stdout;
  const made = await git(["checkout", "-q", "-b", branch]);
  if (made.code !== 0) {
    await unlock();
    throw refuse(`git cannot create the branch: ${made.stderr.slice(0, 300)}`);
  }
  return {
    async undo() {
      await git(["reset", "-q"]);
      await git(["checkout", "-q", "-f", previous]);
      await git(["branch", "-q", "-D", branch]);
      await git(["clean", "-f", "-d", "-x", "-q", "--", resultsExisted ? `bench/results/${name}` : "bench/results"]);
      await unlock();
    },
    async writeBody(body) {
      const file = `strata-bench-pr-${name}.md`;
      await lockWriter.write(file, new TextEncoder().encode(body));
      return `${gitDir}/${file}`;
    },
    release: unlock,
  };
}

/**
 * Copies the result folder's top-level regular files into `bench`/`dest` byte for byte, each folder on the way
 * checked to be no link (nothing is written outside the clone); anything else in the result folder (a folder, a
 * link, a device) is refused, as a run writes none.
 * @throws {SubmitRefusal} for such an entry, FolderFileError for a file that cannot be read or written.
 */
export async function copyResultFolder(source: string, bench: string, dest: string): Promise<string[]> {
  const from = await openSafeFolder(source);
  const entries = await from.list();
  const odd = entries.find((e) => e.kind !== "file");
  if (odd !== undefined) {
    throw new SubmitRefusal(`Cannot submit "${source}": "${odd.name}" is a ${odd.kind}, and a run writes only files`);
  }
  const to = await openFolderWriter(bench, { refuseLink: true });
  for (const entry of entries) await to.write(`${dest}/${entry.name}`, await from.read(entry.name, entry.sizeBytes));
  return entries.map((e) => e.name);
}
