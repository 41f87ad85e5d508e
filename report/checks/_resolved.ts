/**
 * What the engine resolved and how it queued, rebuilt from the evidence lines: each sent request's resolved
 * configuration (its body against its /slots reading) and each round's queueing, held against what
 * /extensions/resolved_configuration and /extensions/round_queueing state.
 */
import { roundQueueing } from "../../score/mod.ts";
import { brief } from "../_difference.ts";
import { isJsonObject } from "../_contract_check.ts";
import { childPointer, type ProblemSink } from "../_pointer.ts";
import { configCheckOf } from "../_evidence_line.ts";
import type { EvidenceCheckInput, EvidenceLine } from "./_types.ts";

/**
 * The resolved-configuration check of every sent request, rebuilt from its line (body and /slots reading) with
 * score/'s comparison, must be the one /extensions/resolved_configuration states (verdict, compared settings,
 * differing ones; the reason and the reported extras are words and are not compared); a request the engine ran
 * with other settings makes the run nonconforming.
 */
export function checkConfigChecks(
  lines: readonly EvidenceLine[],
  input: EvidenceCheckInput,
  problems: ProblemSink,
): void {
  const name = input.evidence.artifact.path;
  const base = "/extensions/resolved_configuration";
  const stated = isJsonObject(input.resolvedConfiguration) ? input.resolvedConfiguration["requests"] : undefined;
  const sent = lines.filter((line) => line.facts.kind === "outcome");
  if (input.resolvedConfiguration === undefined && sent.length === 0) return;
  if (!isJsonObject(stated)) {
    problems.push({
      pointer: base,
      message: `must hold requests: id -> check, found ${brief(input.resolvedConfiguration)}`,
    });
    return;
  }
  const pick = (check: unknown) =>
    isJsonObject(check)
      ? JSON.stringify({ verified: check["verified"], compared: check["compared"], differing: check["differing"] })
      : brief(check);
  for (const line of sent) {
    const rebuilt = configCheckOf(line.facts);
    if (rebuilt === null) continue;
    const pointer = childPointer(`${base}/requests`, line.id);
    const theirs = stated[line.id];
    if (pick(theirs) !== pick(rebuilt)) {
      problems.push({
        pointer,
        message:
          `results.json says ${brief(isJsonObject(theirs) ? theirs["verified"] : theirs)}, the evidence (${name} ` +
          `line ${line.lineNumber}: request, slot_reading) gives verified ${rebuilt.verified}` +
          (rebuilt.differing.length > 0 ? ` (${rebuilt.differing.join(", ")} differ)` : ""),
      });
    }
    if (rebuilt.verified === false && input.status !== null && input.status !== "nonconforming") {
      problems.push({
        pointer: "/run/status",
        message:
          `${name} line ${line.lineNumber} shows the engine ran "${line.id}" with ${rebuilt.differing.join(", ")} ` +
          `other than sent, so run.status must be "nonconforming", found "${input.status}"`,
      });
    }
  }
}

/**
 * /extensions/round_queueing rebuilt with score/'s roundQueueing from the records and the lines' response-headers
 * stamps: how many requests of each round waited for a slot, and each wait (numbers and flags; the words are not
 * compared).
 */
export function checkQueueing(lines: readonly EvidenceLine[], input: EvidenceCheckInput, problems: ProblemSink): void {
  if (input.run === null || !input.run.optionalConcurrency || input.serverCapacity === undefined) return;
  // Rebuilt only from a complete set of sound records (the others were reported where they fail).
  if (input.records.length !== input.ids.length) return;
  const pointer = "/extensions/round_queueing";
  const headers = Object.fromEntries(
    lines.map((line) => [line.id, line.facts.kind === "outcome" ? line.facts.outcome.offsets.headers_s : null]),
  );
  const rebuilt = roundQueueing(input.records.map((r) => r.record), headers, input.serverCapacity);
  const numbers = (value: unknown) =>
    JSON.stringify(
      Array.isArray(value)
        ? value.map((round) =>
          isJsonObject(round)
            ? {
              round: round["round"],
              capacity: round["capacity"],
              waited: round["waited"],
              requests: Array.isArray(round["requests"])
                ? round["requests"].map((w) =>
                  isJsonObject(w) ? { id: w["request_id"], wait_s: w["wait_s"], queued: w["queued"] } : w
                )
                : round["requests"],
            }
            : round
        )
        : value,
    );
  if (numbers(input.roundQueueing) !== numbers(rebuilt)) {
    const shown = rebuilt.map((r) => `round ${r.round}: ${r.waited ?? "unknown"} waited`).join(", ");
    problems.push({
      pointer,
      message: `differs from what the request records and the lines' response-headers stamps give (${shown})`,
    });
  }
}
