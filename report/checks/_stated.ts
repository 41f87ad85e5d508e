/**
 * Record values an evidence line states instead of letting them be rebuilt (`record_overrides`): the publisher
 * writes them where redaction changed the text a value was computed from. A stated value is taken only where the
 * evidence shows why it had to be stated: the text it was computed from, in that very line, carries a placeholder
 * the sanitizer writes (sanitize/sanitize.ts), and the value is one the field may hold. Every stated value must also
 * be listed in /extensions/record_overrides, so that the README and a reader see each of them.
 */
import { brief } from "../_difference.ts";
import { isJsonObject } from "../_contract_check.ts";
import type { ProblemSink } from "../_pointer.ts";
import type { EvidenceCheckInput, EvidenceLine, StatedSources } from "./_types.ts";
import { REDACTION_PLACEHOLDER } from "../../sanitize/mod.ts";
import { statedImpossible } from "../_stated_possible.ts";

export type { StatedSources };

/** A line's source texts, read from its parsed fields. */
export function statedSources(fields: Record<string, unknown>): StatedSources {
  const text = (value: unknown) => JSON.stringify(value ?? null);
  return {
    answer: text([fields["final_answer"], fields["tool_calls"]]),
    error: text([fields["error"], fields["finish_reason"], fields["skip_reason"]]),
    engine: text([fields["usage_chunk"], fields["timings_chunk"]]),
    whole: text(fields),
  };
}

/** Which source a stated pointer was computed from, and whether `value` may stand for that field. */
function sourceOf(pointer: string): { source: keyof StatedSources; allowed: (value: unknown) => boolean } {
  const top = pointer.split("/")[1] ?? "";
  const count = (v: unknown) => v === null || (typeof v === "number" && Number.isFinite(v) && v >= 0);
  if (pointer === "/evaluation/passed") return { source: "answer", allowed: (v) => typeof v === "boolean" };
  if (pointer === "/evaluation/reason") return { source: "answer", allowed: (v) => typeof v === "string" };
  if (top === "evaluation") return { source: "answer", allowed: (v) => v === null || isJsonObject(v) };
  if (top === "tokens" || top === "timings" || top === "metrics") return { source: "engine", allowed: count };
  if (top === "status" || top === "finish_reason" || top === "error") {
    return { source: "error", allowed: (v) => v === null || typeof v === "string" || isJsonObject(v) };
  }
  return { source: "whole", allowed: (v) => pointer !== "" || isJsonObject(v) };
}

/**
 * Each stated value needs a redaction placeholder in the text it was computed from, a value of its field, and
 * (where the fixtures are known) to be what the rule gives with the placeholders read as redaction could have
 * written them (_stated_possible.ts).
 */
export function checkOverridesRedacted(
  lines: readonly EvidenceLine[],
  input: EvidenceCheckInput,
  problems: ProblemSink,
): void {
  const name = input.evidence.artifact.path;
  for (const line of lines) {
    for (const [pointer, value] of Object.entries(line.overrides)) {
      const { source, allowed } = sourceOf(pointer);
      const at = `${name} line ${line.lineNumber} ("${line.id}") states ${
        pointer === "" ? "the whole record" : pointer
      }`;
      if (!REDACTION_PLACEHOLDER.test(line.texts[source])) {
        problems.push({
          pointer: "/extensions/record_overrides",
          message: `${at}, but the text it is computed from (${source === "whole" ? "the line" : `its ${source}`}) ` +
            "holds no redaction placeholder: a stated value is taken only where redaction changed that text",
        });
      } else if (!allowed(value)) {
        problems.push({
          pointer: "/extensions/record_overrides",
          message: `${at} as ${brief(value)}, which is no value of that field`,
        });
      }
    }
    const fixture = input.fixtures?.get(line.id);
    if (fixture === undefined) continue;
    const record = input.records.find((r) => r.record.id === line.id)?.record;
    for (const why of statedImpossible(fixture, line.facts, line.overrides, record?.concurrency ?? 1)) {
      problems.push({
        pointer: "/extensions/record_overrides",
        message: `${name} line ${line.lineNumber} ("${line.id}") ${why}: a stated value is taken only where ` +
          "redaction could have produced it",
      });
    }
  }
}
/**
 * Every record value a line states explicitly (scored before redaction changed its text) must be listed in
 * /extensions/record_overrides, by request id and pointer, so that the README and a reader see each of them.
 */
export function checkOverridesListed(
  lines: readonly EvidenceLine[],
  input: EvidenceCheckInput,
  problems: ProblemSink,
): void {
  const name = input.evidence.artifact.path;
  const pointer = "/extensions/record_overrides";
  const stated = lines.filter((line) => Object.keys(line.overrides).length > 0);
  if (input.recordOverrides === undefined && stated.length === 0) return;
  const listed = input.recordOverrides ?? {};
  if (!isJsonObject(listed)) {
    problems.push({ pointer, message: `must be an object of request id -> record pointers, found ${brief(listed)}` });
    return;
  }
  const seen = new Set<string>();
  for (const line of stated) {
    seen.add(line.id);
    const wanted = Object.keys(line.overrides).sort();
    const entry = listed[line.id];
    const given = Array.isArray(entry) ? [...entry].map(String).sort() : null;
    if (given === null || given.join("\n") !== wanted.join("\n")) {
      problems.push({
        pointer,
        message: `${name} line ${line.lineNumber} states record values of "${line.id}" scored before redaction ` +
          `(${wanted.join(", ")}), but this lists ${brief(entry)}; every such value must be listed`,
      });
    }
  }
  for (const id of Object.keys(listed)) {
    if (!seen.has(id)) {
      problems.push({ pointer, message: `lists "${id}", whose evidence line states no record value` });
    }
  }
}
