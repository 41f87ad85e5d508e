/**
 * The review: one verdict on a result folder from independent judges, all of which must agree before an entry is
 * approved.
 *
 * - report's strict validator (report/): the contract, every count and summary rebuilt with score/'s functions, the
 *   outputs evidence, the artifact bytes, the pictures, the measured digest the run recorded, and the folder's files.
 * - the site's check (site/web/, sharing no code with report/ or score/): the hashes, the folder's files and every
 *   number recomputed from the evidence by the spec text.
 * - the protocol's status and identity rules (site/web/check_status.js): a stated status better than the rules give.
 * - redaction (the maintainers' "Inspect redaction"): the runner's sanitizer, run again over every text file of the
 *   folder with no knowledge of the submitter's machine, must change nothing; a line it would still change is
 *   refused with its file and line (a private string the run missed, or one a submitter put back by hand).
 *
 * When the two scorers read the same result differently (one accepts, the other refuses), that disagreement is a
 * refusal of its own naming both readings. A simulation is never approved, whatever the judges say.
 */
import { type Fixture } from "../contract/mod.ts";
import { validateResultText, validationOptions } from "../report/mod.ts";
import { sanitizeJson, sanitizeText } from "../sanitize/mod.ts";
import {
  type CheckOutcome,
  checkResult,
  type KnownProtocol,
  type ReviewedFolder,
  type ReviewVerdict,
  STATUS_RULES_WORDS,
} from "../site/mod.ts";

/** The judges, as refusals name them. */
export const JUDGES = ["report validator", "site check", "status rules", "redaction"] as const;
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
  /** Reads one of the bundle's files (the site's check rebuilds each request sent by reference from them). */
  readFile(name: string): Promise<Uint8Array | null>;
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

/** Lines named per file; the rest are counted. */
const REDACTION_LINES_NAMED = 3;

/** Where the sanitized copy of a JSON value first differs from it (a JSON Pointer), or null when it does not. */
function firstChange(value: unknown, again: unknown, at = ""): string | null {
  if (typeof value !== "object" || value === null || typeof again !== "object" || again === null) {
    return value === again ? null : at || "(root)";
  }
  const keys = Object.keys(value);
  const otherKeys = Object.keys(again);
  for (const [i, key] of keys.entries()) {
    if (otherKeys[i] !== key) return `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")} (its name)`;
    const inner = firstChange(
      (value as Record<string, unknown>)[key],
      (again as Record<string, unknown>)[key],
      `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`,
    );
    if (inner !== null) return inner;
  }
  return null;
}

/**
 * Where the sanitizer would still change a file: JSON files value by value (as the run sanitized them, so that
 * escaping does not count), every other text file line by line; binary files are skipped.
 */
function stillPrivate(path: string, text: string): string[] {
  const jsonAt = (line: string): string | null | undefined => {
    try {
      const value = JSON.parse(line);
      return firstChange(value, sanitizeJson(value));
    } catch {
      return undefined;
    }
  };
  if (path.endsWith(".json")) {
    const at = jsonAt(text);
    if (at !== undefined) return at === null ? [] : [`at ${at}`];
  }
  const lines = text.split("\n");
  const changed = lines.flatMap((line, i) => {
    if (path.endsWith(".jsonl") && line !== "") {
      const at = jsonAt(line);
      if (at !== undefined) return at === null ? [] : [`line ${i + 1} at ${at}`];
    }
    return sanitizeText(line) === line ? [] : [`line ${i + 1}`];
  });
  return changed;
}

/** Every text file's places the sanitizer would still change, by file (and line or pointer). */
async function redactionProblems(folder: ReviewedFolder): Promise<string[]> {
  const problems: string[] = [];
  const files = (await folder.list()) ?? ["results.json"];
  for (const path of files) {
    const bytes = path === "results.json" ? folder.resultsBytes : await folder.read(path);
    const text = bytes === null ? null : decoded(bytes);
    if (text === null) continue;
    const changed = stillPrivate(path, text);
    if (changed.length === 0) continue;
    const named = changed.slice(0, REDACTION_LINES_NAMED).join(", ");
    const more = changed.length > REDACTION_LINES_NAMED ? ` and ${changed.length - REDACTION_LINES_NAMED} more` : "";
    problems.push(
      `${path} ${named}${more}: the sanitizer would still redact something there (a private string the run left ` +
        "or put back); redact it and re-seal the folder (report --seal)",
    );
  }
  return problems;
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
    readBundle: (_corpus, file) => bundle.readFile(file),
  });
  const siteReasons = check.state === "verified" ? [] : check.reasons.length > 0 ? check.reasons : [check.state];
  const judgements: Judgement[] = [
    { judge: "report validator", problems: await reportProblems(folder, bundle) },
    { judge: "site check", problems: siteReasons.filter((r) => !r.includes(STATUS_RULES_WORDS)) },
    { judge: "status rules", problems: siteReasons.filter((r) => r.includes(STATUS_RULES_WORDS)) },
    { judge: "redaction", problems: await redactionProblems(folder) },
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
