/** The run's template check: before the warm-up, refusing the run on a mismatch; recorded when the run goes on. */
import type { Fixture } from "../contract/mod.ts";
import type { ChatBody } from "./request_body.ts";
import { TemplateMismatchError } from "./run_errors.ts";
import type { RunDeps, RunOptions } from "./run_options.ts";
import { compareTemplateProbe, type TemplateCheck } from "./template_check.ts";

/**
 * Renders and counts every planned fixture on the server; null when the check is off or the parts lack it.
 * @throws {TemplateMismatchError} when a fixture's count or shared prefix breaks the frozen bundle's.
 */
export async function runTemplateCheck(
  options: RunOptions,
  deps: RunDeps,
  fixtures: readonly Fixture[],
  bodies: ReadonlyMap<string, ChatBody>,
): Promise<TemplateCheck | null> {
  if (options.checkTemplate === false || deps.renderAndCount === undefined) return null;
  const requests = fixtures.map((f) => ({ id: f.id, body: bodies.get(f.id)?.body ?? {} }));
  const check = compareTemplateProbe(fixtures, await deps.renderAndCount(options.baseUrl, requests, options.signal));
  if (check.mismatches > 0) throw new TemplateMismatchError(check);
  return check;
}

/** The template_check.json artifact's text. */
export function templateCheckArtifact(check: TemplateCheck): string {
  return `${JSON.stringify(check, null, 2)}\n`;
}

/** extensions.template_check: the check's outcome in a few words, the table being the artifact. */
export function templateCheckSummary(check: TemplateCheck | null, options: RunOptions): Record<string, unknown> {
  if (check === null) {
    return {
      ran: false,
      reason: options.checkTemplate === false ? "turned off (--no-check-template)" : "not available to this run",
    };
  }
  return {
    ran: check.supported,
    reason: check.reason,
    source: check.source,
    matched: check.rows.filter((r) => r.verdict === "match").length,
    mismatches: check.mismatches,
    unchecked: check.unchecked,
  };
}
