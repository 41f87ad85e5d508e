/**
 * The review: one verdict on a result folder from independent judges, all of which must agree before an entry is
 * approved.
 *
 * - report's strict validator (report/): the contract, every count and summary rebuilt with score/'s functions, the
 *   outputs evidence, the artifact bytes, the pictures, the measured digest the run recorded, and the folder's files.
 * - the site's check (site/web/, sharing no code with report/ or score/): the hashes, the folder's files and every
 *   number recomputed from the evidence by the spec text.
 * - the protocol's status and identity rules (site/web/check_status.js): a stated status better than the rules give.
 *
 * When the two scorers read the same result differently (one accepts, the other refuses), that disagreement is a
 * refusal of its own naming both readings. A simulation is never approved, whatever the judges say.
 */
import { type Fixture } from "../contract/mod.ts";
import { validateResultText, validationOptions } from "../report/mod.ts";
import {
  type CheckOutcome,
  checkResult,
  type KnownProtocol,
  type ReviewedFolder,
  type ReviewVerdict,
  STATUS_RULES_WORDS,
} from "../site/mod.ts";

/** The three judges, as refusals name them. */
export const JUDGES = ["report validator", "site check", "status rules"] as const;
export type Judge = typeof JUDGES[number];

/** What one judge found (empty: it accepts the result). */
export interface Judgement {
  judge: Judge;
  problems: string[];
}

/** The fixture bundle report's validator checks the records against. */
export interface ReviewBundle {
  fixtures: readonly Fixture[];
  corpusSha256: string;
}

/** Every judge's reading of one folder, and the verdict. */
export interface FullVerdict extends ReviewVerdict {
  judgements: Judgement[];
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function decoded(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** report's reading: every problem of the strict validator (with the measured digest and the folder's files). */
async function reportProblems(folder: ReviewedFolder, bundle: ReviewBundle): Promise<string[]> {
  const text = decoded(folder.resultsBytes);
  if (text === null) return ["results.json: not UTF-8 text"];
  const files = await folder.list();
  const problems = await validateResultText(text, validationOptions(bundle, folder.read, files ?? undefined));
  return problems.map((p) => `results.json ${p.pointer === "" ? "(root)" : p.pointer}: ${p.message}`);
}

function reading(problems: readonly string[]): string {
  const first = problems[0] ?? "";
  return `${problems.length} problem(s), first: ${first.length > 200 ? `${first.slice(0, 200)}...` : first}`;
}

/**
 * Every judge on one folder; the verdict approves only when all accept and the scorers agree.
 * @param protocols the protocols the site knows (built-in and declared)
 */
export async function reviewFolder(
  folder: ReviewedFolder,
  protocols: readonly KnownProtocol[],
  bundle: ReviewBundle,
): Promise<FullVerdict> {
  const check: CheckOutcome = await checkResult({
    resultsBytes: folder.resultsBytes,
    expected: folder.expected,
    readArtifact: folder.read,
    listFolder: folder.list,
    protocols,
  });
  const siteReasons = check.state === "verified" ? [] : check.reasons.length > 0 ? check.reasons : [check.state];
  const judgements: Judgement[] = [
    { judge: "report validator", problems: await reportProblems(folder, bundle) },
    { judge: "site check", problems: siteReasons.filter((r) => !r.includes(STATUS_RULES_WORDS)) },
    { judge: "status rules", problems: siteReasons.filter((r) => r.includes(STATUS_RULES_WORDS)) },
  ];
  const refusals = judgements.flatMap((j) => j.problems.map((p) => `${j.judge} (${folder.folder}): ${p}`));
  const reportOk = judgements[0]!.problems.length === 0;
  const siteOk = check.state === "verified";
  if (reportOk !== siteOk) {
    refusals.unshift(
      `the two scorers disagree on ${folder.folder}: report's validator ${
        reportOk ? "accepts the result" : `rejects it (${reading(judgements[0]!.problems)})`
      }; the site's check ${siteOk ? "verifies it" : `says ${check.state} (${reading(siteReasons)})`}`,
    );
  }
  if (check.facts?.simulated || check.simulated) {
    refusals.push(
      `policy: ${folder.folder} is a simulation (the scripted engine: a file of the folder says the engine was ` +
        "simulated); it measures no hardware and is never approved",
    );
  }
  return { approved: refusals.length === 0, refusals, check, judgements };
}
