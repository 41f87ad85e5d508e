/**
 * `submit FOLDER --repo CLONE`: puts a valid, unedited (or sealed) result folder into a clone of a results repository
 * on a new branch, commits it, writes the pull request's title and body, and prints the `git push` and
 * `gh pr create` lines. It pushes nothing, never writes outside the clone and never replaces a folder there.
 */
import { basename, join, resolve } from "node:path";
import {
  env,
  invocationFolder,
  lstatOutcome,
  onTerminationSignal,
  realPathOutcome,
  statOutcome,
  writeStderr,
  writeStdout,
} from "../runtime/mod.ts";
import { loadBundle } from "../fixtures/mod.ts";
import { folderReadme, prBody, prTitle, readResultFolder } from "../report/mod.ts";
import { gitRunner } from "../site/mod.ts";
import { parseFlags, UsageError } from "./_args.ts";
import { helpFooter } from "./_help.ts";
import { endWith, EXIT } from "./exit_codes.ts";
import { type CloneFacts, copyResultFolder, prepareBranch, SubmitRefusal } from "./_submit_repo.ts";

export const HELP = `Usage: strata-bench submit FOLDER --repo CLONE [--branch NAME]

Puts a result folder into your clone of a results repository as a pull request would carry it: checks the folder
as report does (it must be valid: a folder edited after the run must be sealed first with report --seal; a
simulation is refused), checks the clone (a git work tree with bench/approved.json, nothing uncommitted, no
bench/results/<folder name> yet, no branch of that name yet), creates the branch from the clone's current commit,
copies the folder's files into bench/results/<folder name>/ byte for byte, and commits them. It writes the pull
request's body into the clone's .git folder and prints the title and body, then the two commands that publish it:
git push and gh pr create. It pushes nothing by itself. When a step fails, the clone is put back as it was.

Options:
  --repo CLONE          a clone of the results repository (its root folder)
  --branch NAME         the new branch (default: submit/<run id>)

${
  helpFooter([
    "strata-bench submit bench-results/2026-12-07-standard-rtx-4090-20261207T101500Z-ab12cd --repo ../results",
    "strata-bench submit bench-results/run-a --repo ../results --branch add-rtx-4090",
  ])
}
Exit codes:
  ${EXIT.ok}  the folder was committed on the new branch
  ${EXIT.resultNotOk}  the folder was refused (invalid, edited and not sealed, a simulation, no README.md)
  ${EXIT.usage}  usage error
  ${EXIT.environment}  git is missing, the clone is no results repository or is not clean, the folder or branch
     exists there already, or a file cannot be read or written
  ${EXIT.interrupted}  interrupted by a signal: the clone is put back as it was
`;

const OPTIONS = { repo: { type: "string" }, branch: { type: "string" } } as const;

/** Parses submit's command line. @throws {UsageError} */
export function parseCommandLine(argv: string[]): { folder: string; repo: string; branch: string | null } {
  const { values, positionals } = parseFlags("submit", argv, OPTIONS, { positionals: true });
  if (positionals.length !== 1) throw new UsageError(`submit needs one result folder, got ${positionals.length}`);
  if (typeof values.repo !== "string" || values.repo === "") {
    throw new UsageError("submit needs --repo CLONE (your results repository)");
  }
  return { folder: positionals[0]!, repo: values.repo, branch: values.branch ?? null };
}

/** Variables that send git to another repository, index or object store than the clone's own. */
const GIT_REDIRECTS = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"];

/** The clone as submit sees it: its real root, its git (exit code and text of each call), what exists in it. */
async function cloneOf(repo: string): Promise<CloneFacts> {
  const set = GIT_REDIRECTS.filter((name) => (env(name) ?? "") !== "");
  if (set.length > 0) {
    throw new SubmitRefusal(
      `Cannot submit: ${set.join(", ")} is set, and git would then work on another repository; unset it`,
      "environment",
    );
  }
  const real = await realPathOutcome(repo);
  const facts = real.ok ? await statOutcome(real.value) : null;
  if (!real.ok || facts === null || !facts.ok || !facts.value.isDirectory) {
    throw new SubmitRefusal(`Cannot submit: "${repo}" is no folder; pass your clone's root as --repo`, "environment");
  }
  const run = gitRunner(real.value);
  return {
    realRoot: real.value,
    git: async (args) => {
      const out = await run(args);
      if ("error" in out) throw new SubmitRefusal(`Cannot run git: ${out.error}`, "environment");
      return { code: out.code, stdout: new TextDecoder().decode(out.stdout).trim(), stderr: out.stderr.trim() };
    },
    exists: async (relativePath) => (await lstatOutcome(join(real.value, relativePath))).ok,
  };
}

/**
 * The results repository's owner/name on GitHub, from the clone's `upstream` remote (a fork's source), else
 * `origin`; "OWNER/REPO" where neither is a GitHub URL.
 */
async function githubRepository(git: CloneFacts["git"]): Promise<string> {
  for (const remote of ["upstream", "origin"]) {
    const url = (await git(["remote", "get-url", remote])).stdout;
    const found = /github\.com[:/]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(url);
    if (found !== null) return `${found[1]}/${found[2]}`;
  }
  return "OWNER/REPO";
}

/** `text` as one shell word a person can paste (single-quoted unless it is plain). */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@=+-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** The folder checked as report checks it: the result, or the refusal with its exit code. */
async function checkedFolder(folder: string) {
  const loaded = await readResultFolder(folder, await loadBundle());
  if (loaded.kind !== "checked") throw new SubmitRefusal(loaded.message, "environment");
  if (loaded.total > 0 || loaded.result === null) {
    const first = loaded.problems[0];
    throw new SubmitRefusal(
      `Cannot submit "${folder}": results.json has ${loaded.total} problem(s) (first: ${first?.pointer || "/"}: ` +
        `${first?.message}). A folder edited after the run is sealed first (strata-bench report FOLDER --seal), ` +
        "a damaged one is run again",
    );
  }
  const result = loaded.result;
  if (result.extensions?.["simulated_engine"] === true) {
    throw new SubmitRefusal(`Cannot submit "${folder}": it is a simulation (the scripted engine); run a real server`);
  }
  const readme = await folderReadme(folder, result);
  if (readme === "missing") {
    throw new SubmitRefusal(`Cannot submit "${folder}": README.md is missing; the pull request links it. Restore it`);
  }
  return { result, readme };
}

async function submit(folder: string, repo: string, branchFlag: string | null): Promise<number> {
  const { result, readme } = await checkedFolder(folder);
  const real = await realPathOutcome(folder);
  const name = basename(real.ok ? real.value : resolve(folder));
  const clone = await cloneOf(repo);
  const { git } = clone;
  const branch = branchFlag ?? `submit/${result.run.id}`;
  // A signal between the steps stops at the next one; git, in the same process group, ends on its own.
  let stopped: string | null = null;
  const unsubscribe = onTerminationSignal((signal) => (stopped ??= signal));
  const step = () => {
    if (stopped !== null) {
      throw new SubmitRefusal(`submit: interrupted by ${stopped}; the clone is put back as it was`, "interrupted");
    }
  };
  const restore = await prepareBranch(clone, repo, name, branch);
  let done = false;
  try {
    step();
    const copied = await copyResultFolder(folder, join(clone.realRoot, "bench"), `results/${name}`);
    step();
    const title = prTitle(result);
    const body = prBody(result, { folderName: name, readme });
    // -f: a .gitignore of the clone must not drop a file of the folder from the commit.
    const add = await git(["add", "-f", "--", `bench/results/${name}`]);
    step();
    if (add.code !== 0) throw new SubmitRefusal(`Cannot add the folder: git add says ${add.stderr}`, "environment");
    const commit = await git(["commit", "-q", "-m", title, "-m", `The result folder bench/results/${name}.`]);
    step();
    if (commit.code !== 0) {
      throw new SubmitRefusal(
        `Cannot commit: git commit says ${commit.stderr || commit.stdout} (set git config user.name and ` +
          "user.email in the clone first)",
        "environment",
      );
    }
    const inCommit = (await git(["show", "--name-only", "--format=", "HEAD"])).stdout.split("\n").sort();
    const expected = copied.map((f) => `bench/results/${name}/${f}`).sort();
    if (inCommit.join("\n") !== expected.join("\n")) {
      throw new SubmitRefusal(
        `Cannot submit: the commit holds ${inCommit.length} file(s), the folder ${expected.length}; nothing is kept`,
        "environment",
      );
    }
    const bodyFile = await restore.writeBody(body);
    step();
    await restore.release();
    done = true;
    const target = await githubRepository(git);
    writeStdout(`Title: ${title}\n\n${body}`);
    writeStderr(
      `submit: committed bench/results/${name} on the new branch ${branch} of ${repo}; nothing was pushed.\n` +
        `next: git -C ${shellWord(repo)} push -u origin ${shellWord(branch)}\n` +
        `      gh pr create --repo ${target} --title ${shellWord(title)} --body-file ${shellWord(bodyFile)}\n`,
    );
    return EXIT.ok;
  } finally {
    if (!done) await restore.undo();
    unsubscribe();
  }
}

/** Entry point of `submit`. */
export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    return endWith(error, (message) => `${message}\nRun "strata-bench submit --help" for usage.`);
  }
  const here = invocationFolder();
  try {
    return await submit(resolve(here, parsed.folder), resolve(here, parsed.repo), parsed.branch);
  } catch (error) {
    return endWith(error, undefined, { otherwise: EXIT.environment });
  }
}
