/**
 * `approved check FOLDER...` (every judge of the review on folders of a working tree, as a pull request carries
 * them) and `approved init DIR` (a new results repository: the manifest, the guides, the review and site
 * workflows and their scripts).
 */
import { basename, dirname, relative, resolve } from "node:path";
import { sha256Hex } from "../contract/mod.ts";
import {
  concatBytes,
  invocationFolder,
  openFolderWriter,
  readDirOutcome,
  writeStderr,
  writeStdout,
} from "../runtime/mod.ts";
import { folderReader, gitRunner, type KnownProtocol, resultsRepositoryKit } from "../site/mod.ts";
import { UsageError } from "./_args.ts";
import { EXIT } from "./exit_codes.ts";
import { markdownText } from "../report/mod.ts";
import { reviewer } from "./site.ts";

/** The run id and protocol id results.json states ("" where it states none): what the review holds it to. */
function stated(bytes: Uint8Array): { runId: string; protocolId: string } {
  try {
    const value = JSON.parse(new TextDecoder().decode(bytes));
    return { runId: String(value?.run?.id ?? ""), protocolId: String(value?.protocol?.id ?? "") };
  } catch {
    return { runId: "", protocolId: "" };
  }
}

/** Markdown of one folder's verdict for a job summary: accepted, or each refusal as a list item. */
function summaryOf(folder: string, refusals: readonly string[], tally: string): string {
  const safe = (text: string) => markdownText(text.replace(/\s+/g, " "));
  if (refusals.length === 0) {
    return `## Accepted: ${safe(folder)}\n\nEvery judge accepts it (report validator, site check, status rules, ` +
      `redaction); sanity verdicts: ${safe(tally)}.\n\n`;
  }
  return `## Refused: ${safe(folder)}\n\n${refusals.map((r) => `- ${safe(r)}`).join("\n")}\n\n`;
}

/**
 * Every judge (report's validator, the site's check, the status rules, redaction) on each folder; with
 * `--summary FILE` the verdicts are appended to FILE as Markdown (a CI job summary). Exit 0 when all are accepted.
 */
export async function check(
  values: Record<string, unknown>,
  positionals: readonly string[],
  protocols: readonly KnownProtocol[],
): Promise<number> {
  if (positionals.length === 0) throw new UsageError("approved check needs at least one result folder");
  const review = reviewer(protocols);
  const here = invocationFolder();
  let refused = 0;
  let markdown = "";
  for (const given of positionals) {
    const dir = resolve(here, given);
    const label = relative(here, dir) || ".";
    const read = folderReader(dir);
    const bytes = await read("results.json");
    const verdict = bytes === null ? null : await review({
      folder: label,
      resultsBytes: bytes,
      read,
      list: async () => (await read.list?.()) ?? null,
      expected: { resultsSha256: sha256Hex(bytes), ...stated(bytes) },
    });
    const refusals = verdict?.refusals ?? [`${label}: no results.json (a regular file inside the folder)`];
    // As approved add says it: how many sanity verdicts the site recomputed, how many the runner only stated.
    const verdicts = verdict?.check.facts?.verdicts ?? [];
    const statedCount = verdicts.filter((v) => v.stated).length;
    const tally = `${verdicts.length - statedCount} recomputed from the evidence, ${statedCount} stated by the runner`;
    if (refusals.length > 0) refused++;
    writeStdout(refusals.length === 0 ? `  ok   ${label}: every judge accepts it (${tally})\n` : `  BAD  ${label}\n`);
    for (const refusal of refusals) writeStdout(`         ${refusal}\n`);
    markdown += summaryOf(label, refusals, tally);
  }
  if (typeof values.summary === "string") {
    const file = resolve(here, values.summary);
    const folder = await openFolderWriter(dirname(file), { refuseLink: true });
    const before = await folder.read(basename(file), 64 * 1024 * 1024) ?? new Uint8Array();
    await folder.write(basename(file), concatBytes([before, new TextEncoder().encode(markdown)]));
  }
  writeStdout(`${positionals.length - refused} of ${positionals.length} folder(s) accepted\n`);
  return refused === 0 ? EXIT.ok : EXIT.resultNotOk;
}

/**
 * The npm install spec the kit's workflows pin, refused unless it pins one build: a tarball URL or file (.tgz), a
 * git URL at a full commit (#<40 hex digits>), or an exact version of a published name (name@1.2.3). A name alone,
 * a range or a tag would install whatever the registry serves under that name the day the workflow runs.
 * @throws {UsageError} naming what to pass.
 */
export function pinnedToolkit(spec: unknown, version: string): string {
  const example = `(for example https://example.org/strata-bench-${version}.tgz, or ` +
    "git+https://github.com/OWNER/strata-bench.git#<the full 40-character commit>)";
  if (typeof spec !== "string" || spec === "") {
    throw new UsageError(
      `approved init needs --toolkit SPEC: the npm install spec of the toolkit the workflows run, pinned ${example}; ` +
        "strata-bench is not on the npm registry",
    );
  }
  const pinned = /\.tgz(?:[?#].*)?$/.test(spec) || /#[0-9a-f]{40}$/.test(spec) ||
    /^(@[^/@]+\/)?[^@/]+@\d+\.\d+\.\d+$/.test(spec);
  if (!pinned) throw new UsageError(`--toolkit "${spec}" pins no single build: pass one ${example}`);
  return spec;
}

/**
 * Writes the kit into DIR (new or empty) and makes it a git repository on branch main; `--toolkit SPEC` is the npm
 * install spec its workflows pin (default: this toolkit's version).
 */
export async function init(values: Record<string, unknown>, positionals: readonly string[], version: string) {
  if (positionals.length !== 1) throw new UsageError(`approved init needs one new folder, got ${positionals.length}`);
  const dir = resolve(invocationFolder(), positionals[0]!);
  const existing = await readDirOutcome(dir);
  if (existing.ok && existing.value.length > 0) {
    writeStderr(`Cannot make a results repository in "${dir}": the folder is not empty; name a new or empty one\n`);
    return EXIT.environment;
  }
  const toolkit = pinnedToolkit(values.toolkit, version);
  const writer = await openFolderWriter(dir, { refuseLink: true });
  const files = resultsRepositoryKit({ toolkit });
  for (const file of files) await writer.write(file.path, new TextEncoder().encode(file.text));
  const git = gitRunner(writer.root);
  const made = await git(["init", "-q", "-b", "main"]);
  const ok = !("error" in made) && made.code === 0;
  writeStdout(files.map((f) => `  ${f.path}\n`).join(""));
  writeStderr(
    `approved init: a results repository in ${writer.root}${
      ok ? " (git, branch main)" : " (git init failed: run it)"
    }` +
      `; its workflows install ${toolkit}.\n` +
      `next: git -C ${writer.root} add -A && git -C ${writer.root} commit -m "a results repository"\n` +
      "      on GitHub, make the repository, enable Pages (Settings, Pages, source GitHub Actions) and private " +
      "vulnerability reporting, then push\n",
  );
  return ok ? EXIT.ok : EXIT.environment;
}
