/**
 * `submit FOLDER --repo CLONE`: puts a valid, unedited (or sealed) result folder into a clone of a results repository
 * on a new branch, commits it, writes the pull request's title and body, and prints the `git push` and
 * `gh pr create` lines. It pushes nothing, never writes outside the clone and never replaces a folder there.
 */
import { basename, join, resolve } from "node:path";
import { invocationFolder, writeStderr, writeStdout } from "../runtime/mod.ts";
import { loadBundle } from "../fixtures/mod.ts";
import { folderReadme, prBody, prTitle, readResultFolder } from "../report/mod.ts";
import { gitRunner } from "../site/mod.ts";
import { parseFlags, UsageError } from "./_args.ts";
import { helpFooter } from "./_help.ts";
import { endWith, EXIT } from "./exit_codes.ts";
import { copyResultFolder, type GitRun, prepareBranch, SubmitRefusal } from "./_submit_repo.ts";

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
`;

const OPTIONS = { repo: { type: "string" }, branch: { type: "string" } } as const;

/** Parses submit's command line. @throws {UsageError} */
export function parseCommandLine(argv: string[]): { folder: string; repo: string; branch: string | null } {
  const { values, positionals } = parseFlags("submit", argv, OPTIONS, { positionals: true });
  if (positionals.length !== 1) throw new UsageError(`submit needs one result folder, got ${positionals.length}`);
  if (typeof values.repo !== "string") throw new UsageError("submit needs --repo CLONE (your results repository)");
  return { folder: positionals[0]!, repo: values.repo, branch: values.branch ?? null };
}

/** The real git of `dir`, as submit runs it: the exit code and text of each call. */
function gitOf(dir: string): GitRun {
  const run = gitRunner(dir);
  return async (args) => {
    const out = await run(args);
    if ("error" in out) throw new SubmitRefusal(`Cannot run git: ${out.error}`, "environment");
    return { code: out.code, stdout: new TextDecoder().decode(out.stdout).trim(), stderr: out.stderr.trim() };
  };
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
  const name = basename(resolve(folder));
  const git = gitOf(repo);
  const branch = branchFlag ?? `submit/${result.run.id}`;
  const restore = await prepareBranch(git, repo, name, branch);
  let committed = false;
  try {
    await copyResultFolder(folder, join(repo, "bench"), `results/${name}`);
    const title = prTitle(result);
    const body = prBody(result, { folderName: name, readme });
    const add = await git(["add", "--", `bench/results/${name}`]);
    if (add.code !== 0) throw new SubmitRefusal(`Cannot add the folder: git add says ${add.stderr}`, "environment");
    const commit = await git(["commit", "-q", "-m", title, "-m", `The result folder bench/results/${name}.`]);
    if (commit.code !== 0) {
      throw new SubmitRefusal(
        `Cannot commit: git commit says ${commit.stderr || commit.stdout} (set git config user.name and ` +
          "user.email in the clone first)",
        "environment",
      );
    }
    committed = true;
    const bodyFile = await restore.writeBody(body);
    writeStdout(`Title: ${title}\n\n${body}`);
    writeStderr(
      `submit: committed bench/results/${name} on the new branch ${branch} of ${repo}; nothing was pushed.\n` +
        `next: git -C ${repo} push -u origin ${branch}\n` +
        `      gh pr create --repo OWNER/REPO --head ${branch} --title "${title.replaceAll('"', "'")}" ` +
        `--body-file ${bodyFile}\n`,
    );
    return EXIT.ok;
  } finally {
    if (!committed) await restore.undo();
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
