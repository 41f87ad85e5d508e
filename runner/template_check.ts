/**
 * The template check before the warm-up (`run --check-template`, `probe --template`): every fixture's exact body is
 * rendered and counted by the server, and compared with the frozen bundle. The tolerances: the tool cases (T1-T4,
 * whose tool formatting the protocol fixes) must count exactly the frozen tokens, since a one-space change in the
 * tool-call format moves them by one token (0.6%); every other request may be off by at most 2% of the frozen count
 * (and, for the 4K and 16K cases, of their targets). A count outside its tolerance, or a prefix shared with another
 * request longer than the frozen max_shared_prefix_tokens + 8, means the server's template or tokenizer is not the
 * bundle's: the run would be nonconforming, so it stops before anything is measured. (A real llama-server with the
 * tiny test model renders all 34 exactly.)
 */
import type { Fixture } from "../contract/mod.ts";
import { TEMPLATE_PROBE_SOURCE, type TemplateProbe } from "../probe/mod.ts";
import { isPromptLengthOutOfRange, PROMPT_LENGTH_TOLERANCE, REUSE_SLACK_TOKENS } from "../score/mod.ts";

/** One fixture side by side: the frozen counts and the server's. */
export interface TemplateCheckRow {
  id: string;
  frozen_tokens: number;
  server_tokens: number | null;
  frozen_max_shared_prefix_tokens: number;
  server_max_shared_prefix_tokens: number | null;
  verdict: "match" | "mismatch" | "unchecked";
  /** Why a mismatch or an unchecked row (null for a match). */
  reason: string | null;
}

/** The whole check, as the template_check.json artifact records it. */
export interface TemplateCheck {
  source: string;
  supported: boolean;
  /** Why the check did not run (unsupported server); null when it ran. */
  reason: string | null;
  rows: TemplateCheckRow[];
  mismatches: number;
  unchecked: number;
}

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Compares the server's renderings (renderAndCount) with the fixtures they were made from. */
export function compareTemplateProbe(fixtures: readonly Fixture[], probe: TemplateProbe): TemplateCheck {
  const check: TemplateCheck = {
    source: TEMPLATE_PROBE_SOURCE,
    supported: probe.supported,
    reason: probe.reason,
    rows: [],
    mismatches: 0,
    unchecked: 0,
  };
  if (!probe.supported) return check;
  const tokensOf = new Map(probe.requests.map((r) => [r.id, r]));
  const counted = probe.requests.filter((r) => r.tokens !== null);
  for (const fixture of fixtures) {
    const server = tokensOf.get(fixture.id);
    const tokens = server?.tokens ?? null;
    const row: TemplateCheckRow = {
      id: fixture.id,
      frozen_tokens: fixture.input_tokens,
      server_tokens: tokens?.length ?? null,
      frozen_max_shared_prefix_tokens: fixture.max_shared_prefix_tokens,
      server_max_shared_prefix_tokens: null,
      verdict: "unchecked",
      reason: server?.reason ?? "not rendered",
    };
    if (tokens !== null) {
      row.server_max_shared_prefix_tokens = Math.max(
        0,
        ...counted.filter((other) => other.id !== fixture.id).map((other) => commonPrefix(tokens, other.tokens!)),
      );
      const problems: string[] = [];
      const off = Math.abs(tokens.length - fixture.input_tokens);
      if (fixture.category === "tool_call" && off > 0) {
        problems.push(
          `${tokens.length} tokens, ${off} off the frozen ${fixture.input_tokens} (a tool case must match exactly: ` +
            "the protocol fixes its tool formatting)",
        );
      } else if (off > PROMPT_LENGTH_TOLERANCE * fixture.input_tokens) {
        problems.push(`${tokens.length} tokens, ${off} off the frozen ${fixture.input_tokens} (more than 2%)`);
      } else if (isPromptLengthOutOfRange(fixture.case_id, tokens.length)) {
        problems.push(`${tokens.length} tokens, more than 2% off the case's target length`);
      }
      if (row.server_max_shared_prefix_tokens > fixture.max_shared_prefix_tokens + REUSE_SLACK_TOKENS) {
        problems.push(
          `shares ${row.server_max_shared_prefix_tokens} tokens with another request, above the frozen ` +
            `${fixture.max_shared_prefix_tokens} + ${REUSE_SLACK_TOKENS}`,
        );
      }
      row.verdict = problems.length > 0 ? "mismatch" : "match";
      row.reason = problems.length > 0 ? problems.join("; ") : null;
    }
    if (row.verdict === "mismatch") check.mismatches++;
    if (row.verdict === "unchecked") check.unchecked++;
    check.rows.push(row);
  }
  return check;
}
