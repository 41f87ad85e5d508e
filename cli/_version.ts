/** `--version` of the toolkit and of every command: the version, the commit and where the commit was read. */
import { readRunnerCommit, readToolkitVersion, toolkitDirFromModule } from "../probe/mod.ts";
import { readTextOutcome, statOutcome, sys } from "../runtime/mod.ts";

/** This toolkit's version ("0.1.0"), or "unknown". */
export async function toolkitVersion(): Promise<string> {
  return await readToolkitVersion(toolkitDirFromModule(), { readText: readTextOutcome }) ?? "unknown";
}

/** "strata-bench 0.1.0 (commit 0123...cdef, source checkout)" with a reason where the commit is unknown. */
export async function versionText(): Promise<string> {
  const toolkitDir = toolkitDirFromModule();
  const exec = sys.execPath();
  const commit = await readRunnerCommit({
    toolkitDir,
    executableDir: exec.ok ? exec.value.replace(/[\\/][^\\/]*$/, "") : null,
  }, { readText: readTextOutcome, stat: statOutcome });
  const version = await readToolkitVersion(toolkitDir, { readText: readTextOutcome }) ?? "unknown version";
  const kind = commit.buildKind === "release"
    ? "release build"
    : commit.buildKind === "source"
    ? "source checkout"
    : null;
  const where = commit.runnerCommit === null
    ? `commit unknown: ${Object.values(commit.missing)[0] ?? "no .git and no COMMIT file"}`
    : `commit ${commit.runnerCommit}${kind === null ? "" : `, ${kind}`}`;
  return `strata-bench ${version} (${where})\n`;
}
