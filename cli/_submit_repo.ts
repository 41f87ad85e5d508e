/**
 * The clone side of `submit`: the checks before anything is written (a results repository's root, clean, no folder
 * or branch of that name yet), the new branch and how to undo it, the byte-exact copy of a result folder (regular
 * files only, never through a link), and the pull request body beside the clone's git data.
 */
import { openFolderWriter, openSafeFolder } from "../runtime/mod.ts";

/**
 * Why submit stops: a refused folder ("SubmitRefused", exit 1) or a clone or tool that cannot take it
 * ("SubmitUnusable", exit 3); cli/exit_codes.ts maps the names.
 */
export class SubmitRefusal extends Error {
  constructor(message: string, kind: "refused" | "environment" = "refused") {
    super(message);
    this.name = kind === "environment" ? "SubmitUnusable" : "SubmitRefused";
  }
}

/** One git call in the clone: its exit code and trimmed text. */
export type GitRun = (args: readonly string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

/** A result folder's name as a path component of bench/results/: plain, no dot first, no separator. */
const FOLDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** What prepareBranch leaves to do: undo it all, or write the body once the commit is made. */
export interface PreparedBranch {
  /** Puts the clone back: the folder's files removed, the previous branch checked out, the new branch deleted. */
  undo(): Promise<void>;
  /** Writes the pull request body into the clone's git folder; returns its path. */
  writeBody(body: string): Promise<string>;
}

async function must(git: GitRun, args: readonly string[], why: (stderr: string) => string): Promise<string> {
  const out = await git(args);
  if (out.code !== 0) throw new SubmitRefusal(why(out.stderr || out.stdout), "environment");
  return out.stdout;
}

/**
 * Checks the clone and creates the branch: the clone's root is `repo` (not a folder inside a work tree), it holds
 * bench/approved.json, nothing is uncommitted, bench/results/<name> and the branch do not exist yet.
 * @throws {SubmitRefusal} naming what is wrong; nothing is changed then.
 */
export async function prepareBranch(git: GitRun, repo: string, name: string, branch: string): Promise<PreparedBranch> {
  const refuse = (why: string) => new SubmitRefusal(`Cannot submit into "${repo}": ${why}`, "environment");
  if (!FOLDER_NAME.test(name)) {
    throw new SubmitRefusal(`Cannot submit a folder named "${name}": rename it to letters, digits, ".", "_" and "-"`);
  }
  const top = await must(
    git,
    ["rev-parse", "--show-toplevel"],
    (e) => `Cannot submit: "${repo}" is no git clone (${e})`,
  );
  const here = await must(git, ["rev-parse", "--show-prefix"], (e) => e);
  if (here !== "") throw refuse(`it is a folder inside the clone at "${top}"; pass the clone's root as --repo`);
  const listed = await git(["ls-files", "--error-unmatch", "bench/approved.json"]);
  if (listed.code !== 0) {
    throw refuse(
      "it has no committed bench/approved.json, so it is no results repository; clone the results repository",
    );
  }
  const dirty = await must(git, ["status", "--porcelain", "--untracked-files=all"], (e) => e);
  if (dirty !== "") throw refuse("it has uncommitted changes; commit or stash them first");
  const taken = await git(["ls-tree", "-d", "--name-only", "HEAD", `bench/results/${name}`]);
  if (taken.code === 0 && taken.stdout !== "") {
    throw refuse(`bench/results/${name} is there already; a submitted folder is never replaced`);
  }
  // A name git would read as an option is no branch name either.
  if (branch.startsWith("-") || (await git(["check-ref-format", "--branch", branch])).code !== 0) {
    throw refuse(`"${branch}" is no valid branch name; pass another with --branch`);
  }
  if ((await git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`])).code === 0) {
    throw refuse(`the branch ${branch} exists already; pass another with --branch`);
  }
  const previous = (await git(["symbolic-ref", "--quiet", "--short", "HEAD"])).stdout ||
    await must(git, ["rev-parse", "HEAD"], (e) => `Cannot read the clone's commit: ${e}`);
  await must(git, ["checkout", "-q", "-b", branch], (e) => `Cannot create the branch ${branch}: ${e}`);
  const gitDir = await must(git, ["rev-parse", "--absolute-git-dir"], (e) => e);
  return {
    async undo() {
      await git(["reset", "-q"]);
      await git(["checkout", "-q", previous]);
      await git(["branch", "-q", "-D", branch]);
      await git(["clean", "-f", "-d", "-q", "--", `bench/results/${name}`]);
    },
    async writeBody(body) {
      const file = `strata-bench-pr-${branch.replaceAll("/", "-")}.md`;
      await (await openFolderWriter(gitDir, { refuseLink: true })).write(file, new TextEncoder().encode(body));
      return `${gitDir}/${file}`;
    },
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
