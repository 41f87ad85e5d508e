// @ts-check
/// <reference lib="dom" />
/** A result page's reproductions: the runs an entry links to, and the entry against each one that verified. */
import { h, num } from "./app_dom.js";
import { kindBadge, pageLink, plainTable } from "./page_common.js";
import { DELTA_SEED, reproductionDeltas } from "./reproduction_delta.js";

/** @typedef {import("./app_state.js").SiteState} SiteState */
/** @typedef {import("./app_state.js").VerifiedEntry} VerifiedEntry */

/**
 * The reproductions an entry links to, with what differs (another person's hardware may differ).
 * @param {SiteState} state @param {VerifiedEntry} entry
 */
export function reproductionsTable(state, entry) {
  const rows = (entry.read?.entry?.reproduction_run_ids ?? []).map((id) => {
    const other = state.entries.find((e) => e.site.run_id === id);
    const of = other?.outcome.facts ?? null;
    return h(
      "tr",
      {},
      h("td", {}, other === undefined ? id : pageLink(state, other)),
      h("td", {}, other === undefined ? "not in the manifest" : kindBadge(other.kind)),
      h("td", {}, of?.identity.gpu ?? "-"),
      h("td", {}, of?.identity.model ?? "-"),
      h("td", {}, of?.identity.quant ?? "-"),
      h("td", {}, of?.identity.engine ?? "-"),
      h("td", {}, of?.identity.track ?? "-"),
    );
  });
  if (rows.length === 0) return null;
  return [
    h("h3", {}, "Independent reproductions"),
    plainTable(["Run", "Status", "GPU", "Model", "Quant", "Engine", "Track"], rows, { id: "reproductions" }),
    reproductionDeltaTables(state, entry),
  ];
}

/** "+2.1%", "-0.4%"; a rounding error around 0 is "+0.0%". @param {number} x */
function percent(x) {
  const text = (x * 100).toFixed(1);
  return Number(text) < 0 ? `${text}%` : `+${text.replace("-", "")}%`;
}

/**
 * The entry against each verified reproduction on its own, per case: both medians, the reproduction's delta and
 * its seeded bootstrap 95% interval, or "not resolved" where the data cannot tell (reproduction_delta.js).
 * @param {SiteState} state @param {VerifiedEntry} entry
 */
function reproductionDeltaTables(state, entry) {
  const mine = entry.outcome.facts;
  if (mine === null) return null;
  return (entry.read?.entry?.reproduction_run_ids ?? []).map((id) => {
    const other = state.entries.find((e) => e.site.run_id === id)?.outcome;
    if (other?.state !== "verified" || other.facts === null) {
      return h("p", { class: "note" }, `${id} did not verify here: it is not compared.`);
    }
    const rows = reproductionDeltas(mine, other.facts).map((d) =>
      h(
        "tr",
        {},
        h("td", {}, `${d.caseId} @ ${d.concurrency}`),
        h("td", {}, d.metric),
        h("td", { class: "num" }, num(d.entry, 3)),
        h("td", { class: "num" }, num(d.reproduction, 3)),
        h("td", { class: "num" }, d.delta === null ? "-" : percent(d.delta.estimate)),
        h("td", { class: "num" }, d.delta === null ? "-" : `${percent(d.delta.lower)} to ${percent(d.delta.upper)}`),
        h("td", {}, d.why === null ? `reproduction ${d.verdict}` : `not resolved: ${d.why}`),
      )
    );
    return [
      h("h4", {}, `This entry against ${id} (seeded bootstrap 95%, seed ${DELTA_SEED}; never pooled)`),
      plainTable(
        ["Case", "Metric", "This entry (median)", "Reproduction (median)", "Delta", "95% interval", "Verdict"],
        rows,
        { class: "reproduction-delta", "data-run": id },
      ),
    ];
  });
}
