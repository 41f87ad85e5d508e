/**
 * The POST body of one standard-protocol request: the fixture's messages and cap plus every profile setting,
 * spelled for the engine dialect that will read it.
 */
import {
  type Dialect,
  type Fixture,
  fixtureMessages,
  PROFILE_CHAT_TEMPLATE_KWARGS,
  PROFILE_REASONING_EFFORT,
  PROFILE_SAMPLING,
} from "../contract/mod.ts";

/** What was sent for the reasoning budget, and why that value means "no budget" for this dialect. */
export interface BudgetSetting {
  reasoning_budget_tokens: number;
  why: string;
}

/** The request body and the dialect-dependent setting the run records. */
export interface ChatBody {
  body: Record<string, unknown>;
  settings: BudgetSetting;
}

function budgetFor(dialect: Dialect): BudgetSetting {
  switch (dialect) {
    case "strata":
      return { reasoning_budget_tokens: 0, why: "Strata's server reads reasoning_budget_tokens 0 as no budget" };
    case "llama.cpp":
      return {
        reasoning_budget_tokens: -1,
        why: "llama-server reads -1 as its --reasoning-budget (default -1, unrestricted); 0 would end thinking at once",
      };
    case "unknown":
      return {
        reasoning_budget_tokens: 0,
        why: "the engine dialect is unknown, so the protocol's literal 0 was sent without knowing its meaning there",
      };
  }
}

/**
 * Builds the body for one fixture. No `model` field is sent (llama-server and Strata serve one model and ignore
 * it; a caller that needs one adds it). The cap goes in `max_tokens` only, the name every OpenAI-compatible server
 * reads (llama-server prefers n_predict, then max_completion_tokens, then max_tokens; none of the others is sent).
 * `tools` and `tool_choice` appear only when the fixture has them.
 * @throws {TypeError} when the dialect is not one of the known values.
 */
export function buildChatBody(fixture: Fixture, dialect: Dialect): ChatBody {
  if (dialect !== "strata" && dialect !== "llama.cpp" && dialect !== "unknown") {
    throw new TypeError(
      `Cannot build a request body: unknown dialect "${String(dialect)}"; use strata, llama.cpp or unknown`,
    );
  }
  const settings = budgetFor(dialect);
  // The messages come first: an evidence line names them by reference and the judge rebuilds the body in this order.
  const body: Record<string, unknown> = { messages: fixtureMessages(fixture) };
  if (fixture.tools !== null) body.tools = fixture.tools;
  if (fixture.tool_choice !== null) body.tool_choice = fixture.tool_choice;
  Object.assign(body, PROFILE_SAMPLING);
  body.reasoning_effort = PROFILE_REASONING_EFFORT;
  body.chat_template_kwargs = { ...PROFILE_CHAT_TEMPLATE_KWARGS };
  body.reasoning_budget_tokens = settings.reasoning_budget_tokens;
  body.seed = fixture.seed;
  body.max_tokens = fixture.max_output_tokens;
  body.stream = true;
  body.stream_options = { include_usage: true };
  return { body, settings };
}
