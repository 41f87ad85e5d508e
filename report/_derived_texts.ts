/**
 * The texts of results.json a run derives from evidence text that a person may redact, re-derived from the
 * evidence as it is now, so that `report --seal` can carry a redaction of outputs.jsonl into results.json. The
 * derivation is the validator's own: each record is rebuilt from its line with score/'s buildRequestRecord and the
 * line's record overrides (`rebuildRecord`), the summaries with score/'s summarizeRequests, and only their texts
 * are taken:
 * - records: the error message (the engine's error text, a skip reason) and the verdict reason that quotes it;
 * - summaries: the exclusion reason of a skipped request (it quotes the skip reason);
 * - the `missing` reasons of a record whose texts changed, and of the summaries, as the run wrote them;
 * - run-level reasons that quote a changed error message (status and nonconforming reasons, the stop reason, the
 *   /health answers, other `missing` reasons): the old message, and the span the redaction replaced in it, are
 *   replaced by the new ones.
 * A record whose rebuilt form differs in anything but these texts is left alone: that is a measured change, which
 * the measured digest and the validator report.
 */
import type { Fixture, RequestRecord } from "../contract/mod.ts";
import { buildRequestRecord, summarizeRequests } from "../score/mod.ts";
import { DERIVED_RECORD_TEXTS, parseEvidenceLines } from "./checks/_evidence.ts";
import type { EvidenceLine, OutputsEvidence } from "./checks/_types.ts";
import { rebuildRecord, recordInputOf, valueAt } from "./_evidence_line.ts";
import { leafDifferences } from "./_difference.ts";
import { isJsonObject } from "./_contract_check.ts";
import { childPointer, ProblemCollector } from "./_pointer.ts";

/** One derived text whose value differs from what the evidence gives now. */
export interface DerivedText {
  /** JSON Pointer in results.json. */
  pointer: string;
  before: string;
  after: string;
  /** Where it is derived from ("outputs.jsonl line 15: error.message"). */
  from: string;
  /** Whether the validator rebuilds and compares this text (a record's or a summary's), not only the run wrote it. */
  checked: boolean;
}

type Json = Record<string, unknown>;

/** Summaries' exclusion reasons and missing reasons, from the re-derived records. */
function summaryTexts(value: Json, records: RequestRecord[], fixtures: readonly Fixture[], anyRecord: boolean) {
  const out: DerivedText[] = [];
  const run = value["run"];
  const summaries = value["summaries"];
  if (!isJsonObject(run) || typeof run["optional_concurrency"] !== "boolean" || !Array.isArray(summaries)) return out;
  let rebuilt: ReturnType<typeof summarizeRequests>;
  try {
    rebuilt = summarizeRequests(records, {
      maxSharedPrefixTokens: Object.fromEntries(fixtures.map((f) => [f.id, f.max_shared_prefix_tokens])),
      optionalConcurrency: run["optional_concurrency"],
    });
  } catch {
    return out;
  }
  summaries.forEach((summary, i) => {
    const excluded = isJsonObject(summary) && Array.isArray(summary["excluded"]) ? summary["excluded"] : [];
    excluded.forEach((exclusion, j) => {
      const again = rebuilt.summaries[i]?.excluded[j];
      if (!isJsonObject(exclusion) || again === undefined || exclusion["request_id"] !== again.request_id) return;
      if (typeof exclusion["reason"] !== "string" || exclusion["reason"] === again.reason) return;
      out.push({
        pointer: childPointer(childPointer(childPointer(childPointer("/summaries", i), "excluded"), j), "reason"),
        before: exclusion["reason"],
        after: again.reason,
        from: `the record of ${again.request_id}`,
        checked: true,
      });
    });
  });
  if (anyRecord) out.push(...missingTexts(value, rebuilt.missing, "the summaries"));
  return out;
}

/** `missing` entries the run wrote from `derived` (absolute pointers) that differ from it now. */
function missingTexts(value: Json, derived: Readonly<Record<string, string>>, from: string): DerivedText[] {
  const missing = value["missing"];
  if (!isJsonObject(missing)) return [];
  return Object.entries(derived).flatMap(([pointer, reason]) => {
    const before = missing[pointer];
    if (typeof before !== "string" || before === reason) return [];
    return [{ pointer: childPointer("/missing", pointer), before, after: reason, from, checked: false }];
  });
}

/** Shortest changed span that is replaced in run-level strings (a shorter one could hit unrelated words). */
const MIN_SPAN_CHARS = 3;

/**
 * What a redaction replaced in a message: the whole message, and the span between the common prefix and suffix of
 * its two versions ("...: Cannot connect to 127.0.0.1:8080: ..." -> "127.0.0.1:8080"), which other reasons quote.
 */
function replacements(before: string, after: string): [string, string][] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (
    end < before.length - start && end < after.length - start && before.at(-1 - end) === after.at(-1 - end)
  ) end++;
  const span = before.slice(start, before.length - end);
  const pairs: [string, string][] = [[before, after]];
  if (span.length >= MIN_SPAN_CHARS && span !== before) pairs.push([span, after.slice(start, after.length - end)]);
  return pairs;
}

/**
 * Run-level strings that quote a changed error message (status and nonconforming reasons, the stop reason, the
 * /health answers, `missing` reasons outside the records and summaries), with what the redaction replaced.
 */
function quotedTexts(value: Json, messages: readonly { before: string; after: string }[]): DerivedText[] {
  const out: DerivedText[] = [];
  const pairs = messages.flatMap((m) => replacements(m.before, m.after));
  const visit = (text: unknown, pointer: string) => {
    if (typeof text !== "string") return;
    let after = text;
    for (const [from, to] of pairs) after = after.replaceAll(from, to);
    if (after !== text) out.push({ pointer, before: text, after, from: "the redacted error texts", checked: false });
  };
  const ext = isJsonObject(value["extensions"]) ? value["extensions"] : {};
  for (const key of ["status_reasons", "nonconforming_reasons"]) {
    const list = ext[key];
    if (Array.isArray(list)) list.forEach((text, i) => visit(text, childPointer(childPointer("/extensions", key), i)));
  }
  visit(ext["stop_reason"], "/extensions/stop_reason");
  const checks = ext["health_checks"];
  if (Array.isArray(checks)) {
    checks.forEach((check, i) => {
      if (isJsonObject(check)) visit(check["message"], `/extensions/health_checks/${i}/message`);
    });
  }
  const missing = isJsonObject(value["missing"]) ? value["missing"] : {};
  for (const [pointer, text] of Object.entries(missing)) {
    if (!pointer.startsWith("/requests/") && !pointer.startsWith("/summaries/")) {
      visit(text, childPointer("/missing", pointer));
    }
  }
  return out;
}

/**
 * Every derived text of `value` (a parsed results.json) that differs from what `evidence` gives now, in
 * results.json order: records, their missing reasons, summaries, then the run-level reasons.
 */
export function derivedTexts(value: Json, evidence: OutputsEvidence, fixtures: readonly Fixture[]): DerivedText[] {
  const lines = parseEvidenceLines(evidence, new Map(fixtures.map((f) => [f.id, f])), new ProblemCollector(1));
  const requests = value["requests"];
  if (lines === null || !Array.isArray(requests)) return [];
  const lineOf = new Map<string, EvidenceLine>();
  for (const line of lines) if (!lineOf.has(line.id)) lineOf.set(line.id, line);
  const fixtureOf = new Map(fixtures.map((f) => [f.id, f]));
  const out: DerivedText[] = [];
  const messages: { before: string; after: string }[] = [];
  const records = structuredClone(requests) as RequestRecord[];
  let anyRecord = false;
  records.forEach((record, index) => {
    if (!isJsonObject(record) || typeof record.id !== "string") return;
    const line = lineOf.get(record.id);
    const fixture = fixtureOf.get(record.id);
    if (line === undefined || fixture === undefined || !Number.isSafeInteger(record.concurrency)) return;
    let built: { record: RequestRecord; missing: Record<string, string> };
    try {
      // The cadence lives in /extensions/reasoning_cadence and holds no text.
      const { reasoning_cadence: _, ...rebuilt } = rebuildRecord(
        fixture,
        line.facts,
        line.overrides,
        record.concurrency,
      );
      const missing = buildRequestRecord(fixture, recordInputOf(line.facts, record.concurrency)).missing;
      built = {
        record: rebuilt,
        missing: Object.fromEntries(Object.entries(missing).filter(([p]) => !p.startsWith("/reasoning_cadence"))),
      };
    } catch {
      return;
    }
    const subs = leafDifferences(built.record, record);
    if (subs.length === 0 || !subs.every((sub) => DERIVED_RECORD_TEXTS.includes(sub))) return;
    if (!subs.every((sub) => typeof valueAt(record, sub) === "string")) return;
    const base = childPointer("/requests", index);
    for (const sub of subs) {
      const before = valueAt(record, sub) as string;
      const after = valueAt(built.record, sub) as string;
      const field = line.facts.kind === "skipped" ? "skip_reason" : "error.message";
      out.push({
        pointer: `${base}${sub}`,
        before,
        after,
        from: `${evidence.artifact.path} line ${line.lineNumber}: ${field}`,
        checked: true,
      });
      if (sub === "/error/message") messages.push({ before, after });
    }
    records[index] = built.record;
    anyRecord = true;
    const absolute = Object.fromEntries(Object.entries(built.missing).map(([p, reason]) => [`${base}${p}`, reason]));
    out.push(...missingTexts(value, absolute, `the record of ${record.id}`));
  });
  out.push(...summaryTexts(value, records, fixtures, anyRecord));
  out.push(...quotedTexts(value, messages));
  return out;
}
