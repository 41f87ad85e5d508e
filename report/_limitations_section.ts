/**
 * The long tail of a result as a person reads it: limitations, whether the server was freshly loaded, the values
 * stated before redaction, and every value not measured (one line per reason, with its places).
 */
import type { Result } from "../contract/mod.ts";
import * as f from "./_format.ts";
import { MISSING_GROUPS, missingLabel } from "./_missing_groups.ts";
import type { Section } from "./_section.ts";

/** `extensions.server_prior_requests` as the run recorded it (the server probe's reading), or null. */
interface PriorRequestsReading {
  served: number | null;
  atLeast: number;
  freshlyLoaded: boolean | null;
  evidence: string[];
  reason: string | null;
}

function priorRequests(result: Result): PriorRequestsReading | null {
  const raw = result.extensions?.["server_prior_requests"];
  if (typeof raw !== "object" || raw === null) return null;
  const r = raw as Record<string, unknown>;
  return {
    served: typeof r["served"] === "number" ? r["served"] : null,
    atLeast: typeof r["at_least"] === "number" ? r["at_least"] : 0,
    freshlyLoaded: typeof r["freshly_loaded"] === "boolean" ? r["freshly_loaded"] : null,
    evidence: Array.isArray(r["evidence"]) ? r["evidence"].filter((e): e is string => typeof e === "string") : [],
    reason: typeof r["reason"] === "string" ? r["reason"] : null,
  };
}

/**
 * "not freshly loaded: the server had already answered at least 1 request(s) before this run (evidence: ...)",
 * "not known to be freshly loaded: ...", or null for a freshly loaded server. The protocol asks for a newly loaded engine
 * and, when the server was already serving, for the report to say how many requests it had answered.
 */
export function priorRequestsLine(result: Result): string | null {
  const prior = priorRequests(result);
  if (prior === null || prior.freshlyLoaded === true) return null;
  const evidence = prior.evidence.length > 0 ? ` (evidence: ${prior.evidence.map(f.oneLine).join("; ")})` : "";
  if (prior.freshlyLoaded === null) {
    return `not known to be freshly loaded: the runner could not tell whether the server had answered requests ` +
      `before this run${prior.reason === null ? "" : ` (${f.oneLine(prior.reason)})`}${evidence}`;
  }
  const count = prior.served !== null ? `${prior.served}` : `at least ${prior.atLeast}`;
  return `not freshly loaded: the server had already answered ${count} request(s) before this run${evidence}; ` +
    "restart the engine before a run to measure a newly loaded one";
}

/** Request fields whose null is a missing measurement (the others are null because they do not apply). */
const MEASURED_GROUPS = ["tokens", "timings", "metrics"];

/**
 * Where a null of `missing` is shown: run-level pointers as they are, request measurements as "<request id>
 * <field>", summary statistics as "<case> <metric> summary", and not-applicable request fields (error of a
 * completed request, round outside the optional stage...) not at all; they stay in results.json.
 */
function limitationPlace(result: Result, pointer: string): string | null {
  const summary = /^\/summaries\/(\d+)\/(?:median|min|max)$/.exec(pointer);
  if (summary) {
    const s = result.summaries[Number(summary[1])];
    return s === undefined ? pointer : `${s.case_id} ${s.metric} summary`;
  }
  const match = /^\/requests\/(\d+)\/([a-z_]+)(?:\/([a-z_]+))?$/.exec(pointer);
  if (!match) return pointer;
  const [, index, group = "", field] = match;
  if (!MEASURED_GROUPS.includes(group) || field === undefined) return null;
  return `${result.requests[Number(index)]?.id ?? `request ${index}`} ${field}`;
}

/** "sanity-I3 (/evaluation/passed, /evaluation/reason)" for each request whose values the evidence states. */
function redactionOverrideItems(result: Result): string[] {
  const raw = result.extensions?.["record_overrides"];
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return [];
  const entries = Object.entries(raw as Record<string, unknown>).filter(([, p]) => Array.isArray(p) && p.length > 0);
  if (entries.length === 0) return [];
  const listed = entries.map(([id, pointers]) =>
    `${f.oneLine(id)} (${(pointers as unknown[]).map(String).join(", ")})`
  );
  return [
    `scored before redaction: ${listed.join("; ")}. Redaction changed the published text these values were ` +
    "computed from; they are the values scored on the text as the engine sent it, stated in outputs.jsonl " +
    "(record_overrides) and applied by report.",
  ];
}

const PLACES_SHOWN = 6;

/**
 * One line per reason: every null of `missing` and every request a summary left out, grouped by what a person can
 * do about it ("not given (pass --flag)", "not measurable here (why)", "failed (why)"; an exclusion's
 * "<metric> null: " prefix is dropped, so it joins the null it comes from), with its places, in that group order.
 */
export function notMeasuredLines(result: Result): string[] {
  const byLabel = new Map<string, Set<string>>();
  const add = (reason: string, pointer: string | null, place: string) => {
    const key = missingLabel(f.oneLine(reason), pointer);
    const places = byLabel.get(key) ?? new Set<string>();
    places.add(place);
    byLabel.set(key, places);
  };
  const entries = Object.entries(result.missing).sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }));
  for (const [pointer, reason] of entries) {
    const place = limitationPlace(result, pointer);
    if (place !== null) add(reason, pointer, place);
  }
  for (const s of result.summaries) {
    for (const e of s.excluded) {
      const reason = e.reason.startsWith(`${s.metric} null: `) ? e.reason.slice(s.metric.length + 7) : e.reason;
      add(reason, null, `${e.request_id} ${s.metric}`);
    }
  }
  const rank = (label: string) => MISSING_GROUPS.findIndex((g) => label.startsWith(g));
  return [...byLabel].sort(([a], [b]) => rank(a) - rank(b)).map(([label, set]) => {
    const places = [...set];
    const shown = places.slice(0, PLACES_SHOWN).join(", ");
    const more = places.length > PLACES_SHOWN ? ` and ${places.length - PLACES_SHOWN} more` : "";
    return `${label}: ${places.length === 1 ? "" : `${places.length}: `}${shown}${more}`;
  });
}

export function limitationsSection(result: Result): Section {
  return {
    title: "Limitations and missing values",
    paragraphs: [
      `Each line is one reason, with the places it applies to; results.json has every null with its JSON ` +
      `Pointer in "missing" and every left-out request in its summary's "excluded".`,
    ],
    items: [
      `Protocol ${result.protocol.id} is a draft; its results are pilot data, not approved standard results.`,
      "A fixed seed does not make outputs identical across hardware or engine versions.",
      ...(result.run.optional_concurrency
        ? ["Three concurrency rounds are too few for a stable p95; per-round aggregates are reported instead."]
        : []),
      ...[priorRequestsLine(result)].filter((line): line is string => line !== null),
      ...redactionOverrideItems(result),
      ...notMeasuredLines(result),
    ],
  };
}
