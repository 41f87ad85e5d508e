/**
 * Whether the engine ran a request with the settings the request sent: the body as sent against the parameters
 * the engine reports it ran the request's task with (llama.cpp's /slots `params`, read after the request).
 *
 * Readings this file implements:
 * - Compared: the profile's sampling values (temperature, top_p, top_k, min_p, presence_penalty and
 *   repeat_penalty, llama.cpp's name for the repetition penalty), the seed, and the output cap (n_predict, which
 *   llama.cpp takes from max_tokens). llama.cpp keeps sampling values as float32 and prints them as such (top_p
 *   0.95 reads 0.949999988079071), so they are compared after rounding both sides to float32; counts, the seed and
 *   the cap compare exactly.
 * - Samplers the profile does not set must be off, or they change sampling behind the request's back: a
 *   frequency penalty, DRY, XTC, Mirostat, typical-p, top-n-sigma or dynamic temperature at a non-neutral value
 *   differs from the profile just as a changed temperature does.
 * - A differing value makes the check false (and the run nonconforming); a value the engine does not report makes
 *   it null with the names of what is missing; no reading at all is null with the reading's reason.
 * - A reasoning budget is compared where the engine prints one (llama.cpp's /slots prints none; its command line
 *   is checked by probe/): any budget other than unrestricted (-1) differs from the profile (P:59). Stop strings
 *   are reported, not compared: llama.cpp adds the chat template's own end markers to a request's stop list, which
 *   no reading can tell from a stop string the operator added. The reasoning and chat formats are reported.
 */
import { isJsonObject, type SlotReading } from "../contract/mod.ts";

/** One compared setting: what the request sent, what the engine reports, and whether they are the same. */
export interface ComparedSetting {
  /** The engine's name of the setting (llama.cpp's). */
  field: string;
  sent: number | null;
  resolved: unknown;
  equal: boolean | null;
}

/** The comparison for one request. */
export interface ConfigCheck {
  /** true: every compared setting is the one sent; false: at least one differs; null: the engine cannot tell. */
  verified: boolean | null;
  /** Why verified is null, or what differs when it is false; null when it is true. */
  reason: string | null;
  compared: ComparedSetting[];
  /** Settings that differ (compared ones, and samplers the profile keeps off that are on). */
  differing: string[];
  /** What the engine reports beside the compared settings (reasoning/chat format, stop strings, budget). */
  reported: Record<string, unknown>;
}

/**
 * Request body key -> the engine's parameter name (llama.cpp's), and how to compare: the one table of the names a
 * sent setting has on the engine's side (the run's server-defaults comparison reads it too).
 */
export const SENT_AS_ENGINE_PARAMETER: readonly { sent: string; resolved: string; float32: boolean }[] = [
  { sent: "temperature", resolved: "temperature", float32: true },
  { sent: "top_p", resolved: "top_p", float32: true },
  { sent: "top_k", resolved: "top_k", float32: false },
  { sent: "min_p", resolved: "min_p", float32: true },
  { sent: "presence_penalty", resolved: "presence_penalty", float32: true },
  { sent: "repeat_penalty", resolved: "repeat_penalty", float32: true },
  { sent: "seed", resolved: "seed", float32: false },
  { sent: "max_tokens", resolved: "n_predict", float32: false },
];

/** Samplers the profile does not set, with the value that turns each off in llama.cpp. */
const NEUTRAL_SAMPLERS: Readonly<Record<string, number>> = {
  frequency_penalty: 0,
  dry_multiplier: 0,
  xtc_probability: 0,
  mirostat: 0,
  typical_p: 1,
  top_n_sigma: -1,
  dynatemp_range: 0,
};

/** What the check copies from the engine's report when present. */
const REPORTED = ["reasoning_format", "chat_format", "stop", "reasoning_budget_tokens", "reasoning_budget"] as const;

function same(sent: number, resolved: unknown, float32: boolean): boolean | null {
  if (typeof resolved !== "number" || !Number.isFinite(resolved)) return null;
  return float32 ? Math.fround(sent) === Math.fround(resolved) : sent === resolved;
}

function shown(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** Compares the body a request sent with what the engine reports it ran; see the file's readings. */
export function checkResolvedConfig(body: unknown, reading: SlotReading): ConfigCheck {
  const sent = isJsonObject(body) ? body : {};
  if (reading.kind === "none") {
    return { verified: null, reason: reading.reason, compared: [], differing: [], reported: {} };
  }
  const params = isJsonObject(reading.params) ? reading.params : null;
  if (params === null) {
    return {
      verified: null,
      reason: `${reading.source} reports no params object for the task (${reading.matched_by})`,
      compared: [],
      differing: [],
      reported: {},
    };
  }
  const compared: ComparedSetting[] = SENT_AS_ENGINE_PARAMETER.map(({ sent: key, resolved, float32 }) => {
    const value = sent[key];
    const sentNumber = typeof value === "number" ? value : null;
    const reported = Object.hasOwn(params, resolved) ? params[resolved] : null;
    return {
      field: resolved,
      sent: sentNumber,
      resolved: reported,
      equal: sentNumber === null ? null : same(sentNumber, reported, float32),
    };
  });
  const differing = compared.filter((c) => c.equal === false).map((c) => c.field);
  const descriptions = compared.filter((c) => c.equal === false).map((c) =>
    `${c.field} ${shown(c.resolved)} (sent ${shown(c.sent)})`
  );
  for (const [name, neutral] of Object.entries(NEUTRAL_SAMPLERS)) {
    const value = params[name];
    if (typeof value === "number" && Math.fround(value) !== Math.fround(neutral)) {
      differing.push(name);
      descriptions.push(`${name} ${shown(value)} (the profile keeps it at ${neutral}, the request left it unset)`);
    }
  }
  for (const name of ["reasoning_budget", "reasoning_budget_tokens"]) {
    const budget = params[name];
    if (typeof budget === "number" && budget !== -1) {
      differing.push(name);
      descriptions.push(`${name} ${shown(budget)} (the profile leaves thinking unrestricted, -1)`);
    }
  }
  const reported: Record<string, unknown> = {};
  for (const key of REPORTED) if (Object.hasOwn(params, key)) reported[key] = params[key];
  if (differing.length > 0) {
    return {
      verified: false,
      reason: `the engine ran the request with ${descriptions.join(", ")} (${reading.source}, ${reading.matched_by})`,
      compared,
      differing,
      reported,
    };
  }
  const unknown = compared.filter((c) => c.equal === null).map((c) => c.field);
  if (unknown.length > 0) {
    return {
      verified: null,
      reason: `${reading.source} does not report ${unknown.join(", ")} as numbers, so those settings cannot be ` +
        "checked; the others are the ones sent",
      compared,
      differing,
      reported,
    };
  }
  return { verified: true, reason: null, compared, differing, reported };
}
