/** `approved verify` / `approved add`: the approved manifest (bench/approved.json) of a results repository. */
import { join, relative, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { invocationFolder, resultFiles, writeStderr, writeStdout } from "../runtime/mod.ts";
import {
  addApproved,
  GitRepo,
  gitRunner,
  MANIFEST_PATH,
  type ManifestFiles,
  readIfPresent,
  verifyApproved,
  withdrawApproved,
} from "../site/mod.ts";
import { endWith, EXIT, failureText } from "./exit_codes.ts";
import { UsageError } from "./_args.ts";
import { helpFooter } from "./_help.ts";
import { bundleReader, progressLine, protocolsFrom, reviewer } from "./site.ts";
import { check, init } from "./_approved_kit.ts";
import { toolkitVersion } from "./_version.ts";

export const HELP = `Usage: strata-bench approved verify [--repo DIR] [--branch NAME] [--protocols FILE]
       strata-bench approved check FOLDER... [--summary FILE] [--protocols FILE]
       strata-bench approved init DIR --toolkit NPM-SPEC
       strata-bench approved add DIR --review-pr URL --reviewed-by HANDLE [--repo DIR] [--branch NAME]
                                 [--submitted-by HANDLE] [--evidence-commit COMMIT] [--reproduces RUN_ID]...
                                 [--replace]
       strata-bench approved withdraw RUN_ID --reason TEXT --review-pr URL [--repo DIR]

The approved manifest ${MANIFEST_PATH} lists the results a maintainer reviewed (format
strata-approved-benchmarks, schema version 1). The website reads it on the default branch.

verify  checks the manifest in the working tree of the repository: its format, every entry's fields (full commit
        ids, SHA-256 hashes, UTC times, https review links, GitHub handles), unique run ids, reproduction ids that
        are entries themselves; and against git: the evidence commit exists, lies in the default branch's
        history and introduces the report folder, results.json there has the reviewed hash, its run and protocol
        ids match, and every artifact it lists is there with its hash. Every problem is named with its entry.
add     appends the entry for the report folder DIR after its review: the SHA-256 of the results.json committed on
        the default branch, the commit that added it, the review PR and reviewer, the time now. It refuses a
        folder that is uncommitted, changed after that commit, would not pass verify, is a simulation, or that
        the review refuses: report's strict validator (measured digest, only listed files, no model weights),
        the site's independent check ("site verify"), the status rules and the redaction check (the
        sanitizer, run again over every text file, finds nothing left) must all accept it, and the two
        scorers must agree. It refuses a nonconforming run by policy. Verify runs the same review on every
        entry. A refused add changes nothing. --submitted-by HANDLE records the pull request's author.
        --reproduces RUN_ID marks both runs independently reproduced (another person ran the protocol): the same
        protocol, model and quantization, neither simulated, both entries naming their submitters and the two
        different, the two results not from one machine (their extensions.machine_token); the hardware and setup
        may differ, even be identical (it says what differs); --replace keeps the
        entry of the same run id, marked superseded_by the new review, and adds the new one.
withdraw  moves every entry of RUN_ID out of entries into the manifest's withdrawn list, with the approved hash,
        the reason and the review that withdrew it (git history keeps the entry); an entry it reproduced is no
        longer marked reproduced by it. It refuses an unknown or already withdrawn run id and changes nothing then.
check   runs add's review (every judge) on result folders of the working tree, as a pull request carries them,
        and prints each verdict; --summary FILE appends them to FILE as Markdown (a CI job summary). Exit 0 when
        every folder is accepted. It writes no manifest: approval stays a maintainer's add.
init    makes DIR (new or empty) a results repository: an empty ${MANIFEST_PATH}, bench/results/, CONTRIBUTING.md
        (run, inspect, seal, submit), SECURITY.md (a secret found in evidence), and GitHub Actions workflows: on
        every pull request, check on each folder it adds or changes (or verify, for an approval), with the toolkit
        installed from the --toolkit spec and nothing of the pull request run; on the default branch, the site
        built and published to GitHub Pages when the manifest changes. Their steps are scripts in .github/scripts/
        that run the same anywhere. --toolkit must pin one build: a .tgz URL, a git URL at a full commit
        (#<40 hex digits>) or name@x.y.z; strata-bench is not on the npm registry.

Options:
  --repo DIR            the results repository (default: the current folder)
  --branch NAME         the default branch (default: origin/HEAD, else main, else master)
  --protocols FILE      protocol ids to accept besides the built-in ones (see "site --help")
  --evidence-commit C   for add: the reviewed commit, when it is not the one that added results.json
  --submitted-by H      for add: the GitHub handle of the run's submitter (the pull request's author)
  --summary FILE        for check: append the verdicts to FILE as Markdown
  --toolkit SPEC        for init (required): the pinned npm install spec the workflows install the toolkit from

${
  helpFooter([
    "strata-bench approved verify",
    "strata-bench approved add bench/results/run-a --review-pr https://github.com/OWNER/REPO/pull/7 --reviewed-by maintainer",
    'strata-bench approved withdraw RUN_ID --reason "the GPU was throttling" --review-pr https://github.com/OWNER/REPO/pull/9',
  ])
}
Exit codes:
  ${EXIT.ok}  the manifest is valid (verify) or the entry was written (add) or withdrawn (withdraw)
  ${EXIT.resultNotOk}  problems were found (verify) or the entry was refused (add, withdraw)
  ${EXIT.usage}  usage error
  ${EXIT.environment}  git is missing, the folder is not a repository, or a file cannot be read or written
`;

/** The repository folder: --repo, or the folder the command was run from, as an absolute path. */
function repoOf(values: Record<string, unknown>): string {
  return resolve(invocationFolder(), typeof values.repo === "string" ? values.repo : ".");
}

async function verify(values: Record<string, unknown>): Promise<number> {
  const repoDir = repoOf(values);
  const { protocols } = await protocolsFrom(values.protocols);
  const manifest = await readIfPresent(join(repoDir, MANIFEST_PATH));
  if (manifest === null) {
    writeStderr(
      `Cannot verify: the repository "${repoDir}" has no ${MANIFEST_PATH}; pass --repo with the results repository ` +
        "(relative paths are read from the folder you ran the command in)\n",
    );
    return EXIT.resultNotOk;
  }
  const repo = new GitRepo(gitRunner(repoDir));
  await repo.assertRepository();
  const report = await verifyApproved(repo, new TextDecoder().decode(manifest), {
    protocols,
    review: reviewer(protocols),
    onProgress: progressLine("approved verify: checked"),
    ...(typeof values.branch === "string" ? { branch: values.branch } : {}),
  });
  if (!report.ok) {
    writeStdout(`${MANIFEST_PATH}: malformed: ${report.manifestProblem}\n`);
    return EXIT.resultNotOk;
  }
  writeStdout(
    `${MANIFEST_PATH}: ${report.entries.length} entries, default branch ${report.branch.name} ${report.branch.commit}\n`,
  );
  let bad = 0;
  for (const entry of report.entries) {
    if (entry.problems.length === 0) {
      writeStdout(`  ok   ${entry.label}\n`);
      continue;
    }
    bad++;
    writeStdout(`  BAD  ${entry.label}\n`);
    for (const problem of entry.problems) writeStdout(`         ${problem}\n`);
  }
  writeStdout(bad === 0 ? "the manifest is valid\n" : `${bad} of ${report.entries.length} entries have problems\n`);
  return bad === 0 ? EXIT.ok : EXIT.resultNotOk;
}

/** The manifest in the working tree of the repository `repoDir`. */
function manifestFiles(repoDir: string): ManifestFiles {
  const manifestPath = join(repoDir, MANIFEST_PATH);
  return {
    readManifest: async () => {
      const bytes = await readIfPresent(manifestPath);
      return bytes === null ? null : new TextDecoder().decode(bytes);
    },
    writeManifest: async (text) => {
      await resultFiles.makeDirectory(join(repoDir, "bench"));
      await resultFiles.writeAtomic(manifestPath, new TextEncoder().encode(text));
    },
  };
}

async function withdraw(values: Record<string, unknown>, positionals: string[]): Promise<number> {
  if (positionals.length !== 1) throw new UsageError(`approved withdraw needs one run id, got ${positionals.length}`);
  if (typeof values.reason !== "string") throw new UsageError("approved withdraw needs --reason TEXT");
  if (typeof values["review-pr"] !== "string") throw new UsageError("approved withdraw needs --review-pr URL");
  const repoDir = repoOf(values);
  const record = await withdrawApproved(manifestFiles(repoDir), {
    runId: positionals[0] as string,
    reason: values.reason,
    reviewPr: values["review-pr"],
    now: new Date(),
  });
  writeStdout(`${JSON.stringify(record, null, 2)}\n`);
  writeStderr(
    `withdrew ${record.run_id} from ${join(repoDir, MANIFEST_PATH)}; commit it in a maintainer-reviewed change\n`,
  );
  return EXIT.ok;
}

async function add(values: Record<string, unknown>, positionals: string[]): Promise<number> {
  if (positionals.length !== 1) throw new UsageError(`approved add needs one report folder, got ${positionals.length}`);
  if (typeof values["review-pr"] !== "string") throw new UsageError("approved add needs --review-pr URL");
  if (typeof values["reviewed-by"] !== "string") throw new UsageError("approved add needs --reviewed-by HANDLE");
  const repoDir = repoOf(values);
  const given = resolve(invocationFolder(), positionals[0] as string);
  const folder = relative(repoDir, given).split(sep).join("/");
  if (folder === "" || folder.startsWith("..") || resolve(folder) === folder) {
    throw new UsageError(`the report folder "${positionals[0]}" is not inside the repository "${repoDir}"`);
  }
  const { protocols } = await protocolsFrom(values.protocols);
  const repo = new GitRepo(gitRunner(repoDir));
  await repo.assertRepository();
  const review = reviewer(protocols);
  let tally = "";
  const result = await addApproved(repo, manifestFiles(repoDir), {
    folder,
    reviewPr: values["review-pr"],
    reviewedBy: values["reviewed-by"],
    ...(typeof values["submitted-by"] === "string" ? { submittedBy: values["submitted-by"] } : {}),
    now: new Date(),
    reproduces: Array.isArray(values.reproduces) ? values.reproduces as string[] : [],
    replace: values.replace === true,
    protocols,
    readBundle: bundleReader(),
    review: async (folder) => {
      const verdict = await review(folder);
      const verdicts = verdict.check.facts?.verdicts ?? [];
      const stated = verdicts.filter((v) => v.stated).length;
      tally = `${verdicts.length - stated} recomputed from the evidence, ${stated} stated by the runner`;
      return verdict;
    },
    ...(typeof values.branch === "string" ? { branch: values.branch } : {}),
    ...(typeof values["evidence-commit"] === "string" ? { evidenceCommit: values["evidence-commit"] } : {}),
  });
  writeStdout(`${JSON.stringify(result.entry, null, 2)}\n`);
  for (const r of result.reproductions) {
    const differs = r.differences.length === 0 ? "the same setup" : `setups differing in ${r.differences.join("; ")}`;
    writeStderr(
      `marked ${r.runId} and ${result.entry.run_id} independently reproduced (same ` +
        `protocol, model and quantization; ${differs})\n`,
    );
  }
  writeStderr(
    `every judge (report validator, site check, status rules, redaction) accepts it; sanity verdicts: ${tally}\n` +
      `added ${result.entry.run_id} to ${join(repoDir, MANIFEST_PATH)}; commit it in a maintainer-reviewed change\n`,
  );
  return EXIT.ok;
}

/** The flags each subcommand takes besides --repo. */
const FLAGS = {
  verify: ["branch", "protocols"],
  check: ["protocols", "summary"],
  init: ["toolkit"],
  add: ["branch", "protocols", "review-pr", "reviewed-by", "submitted-by", "evidence-commit", "reproduces", "replace"],
  withdraw: ["reason", "review-pr"],
} as const;

/** Parses `approved verify|add|withdraw ...`. @throws {UsageError} or node:util's TypeError with a code. */
export function parseCommandLine(argv: readonly string[]) {
  const [sub, ...rest] = argv;
  if (sub !== "verify" && sub !== "add" && sub !== "withdraw" && sub !== "check" && sub !== "init") {
    throw new UsageError(
      `expected "verify", "add", "withdraw", "check" or "init", got ${JSON.stringify(sub ?? "")}`,
    );
  }
  const { values, positionals } = parseArgs({
    args: rest,
    strict: true,
    allowPositionals: sub !== "verify",
    options: {
      repo: { type: "string" },
      branch: { type: "string" },
      protocols: { type: "string" },
      "review-pr": { type: "string" },
      "reviewed-by": { type: "string" },
      "submitted-by": { type: "string" },
      "evidence-commit": { type: "string" },
      reproduces: { type: "string", multiple: true },
      replace: { type: "boolean" },
      reason: { type: "string" },
      summary: { type: "string" },
      toolkit: { type: "string" },
    },
  });
  for (const flag of Object.keys(values)) {
    if (flag !== "repo" && !(FLAGS[sub] as readonly string[]).includes(flag)) {
      throw new UsageError(`--${flag} does not belong to approved ${sub}`);
    }
  }
  return { sub, values, positionals };
}

/** Entry point of `approved`. */
export async function main(argv: string[]): Promise<number> {
  try {
    const { sub, values, positionals } = parseCommandLine(argv);
    if (sub === "verify") return await verify(values);
    if (sub === "withdraw") return await withdraw(values, positionals);
    if (sub === "check") return await check(values, positionals, (await protocolsFrom(values.protocols)).protocols);
    if (sub === "init") return await init(values, positionals, await toolkitVersion());
    return await add(values, positionals);
  } catch (error) {
    const hint = " strata-bench approved writes bench/ of the folder you run it in, or of the --repo you name.";
    return endWith(error, () => failureText("approved", argv[0], error, hint).trimEnd());
  }
}
