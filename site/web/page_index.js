// @ts-check
/// <reference lib="dom" />
/**
 * The index page, drawn from verified entries only and drawn again as more entries verify. Complete standard
 * results are ranked in separate rankings, one per protocol, track, model, quantization, case and concurrency (by
 * one chosen metric, never a combined score, never one rank sequence across them); partial runs are listed, never
 * ranked; draft-protocol results show their numbers as labelled pilot data; nonconforming results stay outside the
 * standard list with their pages reachable; entries that failed or could not be verified show reasons, no numbers;
 * records replaced after a new review and withdrawn results are listed last, never ranked, without numbers.
 */
import { h, rangeText, show, statCell } from "./app_dom.js";
import {
  historySection,
  kindBadge,
  paged,
  pageLink,
  qualityCell,
  rememberedMark,
  reviewLink,
  statusBadges,
  verificationBadge,
} from "./page_common.js";

/** @typedef {import("./app_state.js").SiteState} SiteState */
/** @typedef {import("./app_state.js").VerifiedEntry} VerifiedEntry */
/** @typedef {import("./facts.js").ResultFacts} ResultFacts */
/** @typedef {import("./facts.js").CaseRow} CaseRow */

/** The comparison dimensions, filters and ranking keys alike. A ranking holds rows equal in every RANKED one. */
const DIMENSIONS = /** @type {const} */ ([
  ["protocol", "Protocol"],
  ["gpu", "GPU"],
  ["model", "Model"],
  ["quant", "Quant"],
  ["track", "Track"],
  ["engine", "Engine"],
  ["case", "Case"],
  ["concurrency", "Concurrency"],
]);
const RANKED = /** @type {const} */ (["protocol", "track", "model", "quant", "case", "concurrency"]);
const CASE_ORDER = ["short", "prompt-4k", "prompt-16k", "short-burst"];

/** @typedef {{ entry: VerifiedEntry, facts: ResultFacts, row: CaseRow, dims: Record<string, string> }} TableRow */

/** @param {VerifiedEntry} entry @returns {TableRow[]} */
function rowsOf(entry) {
  const facts = entry.outcome.facts;
  if (facts === null) return [];
  return facts.cases.map((row) => ({
    entry,
    facts,
    row,
    dims: {
      protocol: facts.protocolId,
      gpu: facts.identity.gpu,
      model: facts.identity.model,
      quant: facts.identity.quant,
      track: facts.identity.track,
      engine: facts.identity.engine,
      case: row.caseId,
      concurrency: String(row.concurrency),
    },
  }));
}

const RANK_BY = /** @type {const} */ ({
  decode_tps: ["decode tok/s (higher first)", -1],
  prompt_tps: ["prompt tok/s (higher first)", -1],
  ttft_s: ["TTFT (lower first)", 1],
});

/** @param {TableRow} r */
const groupKey = (r) => JSON.stringify(RANKED.map((k) => r.dims[k]));

/**
 * The rankings: rows grouped by every RANKED dimension, each group ordered by one metric's median (rows without
 * it last, with no rank). @param {TableRow[]} rows @param {keyof typeof RANK_BY} metric
 * @returns {{ dims: Record<string, string>, rows: TableRow[], rank: Map<TableRow, number> }[]}
 */
function rankings(rows, metric) {
  /** @type {Map<string, TableRow[]>} */
  const groups = new Map();
  for (const row of rows) {
    const key = groupKey(row);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [row]);
    else group.push(row);
  }
  const direction = RANK_BY[metric][1];
  const median = (/** @type {TableRow} */ r) => r.row.metrics[metric]?.median ?? null;
  const list = [...groups.values()].map((group) => {
    const valued = group.filter((r) => median(r) !== null);
    valued.sort((a, b) => direction * ((median(a) ?? 0) - (median(b) ?? 0)));
    const rank = new Map(valued.map((r, i) => [r, i + 1]));
    const ordered = [...valued, ...group.filter((r) => median(r) === null)];
    return { dims: /** @type {TableRow} */ (group[0]).dims, rows: ordered, rank };
  });
  const caseAt = (/** @type {string | undefined} */ c) => CASE_ORDER.indexOf(c ?? "");
  return list.sort((a, b) =>
    caseAt(a.dims.case) - caseAt(b.dims.case) || Number(a.dims.concurrency) - Number(b.dims.concurrency) ||
    groupKey(/** @type {TableRow} */ (a.rows[0])).localeCompare(groupKey(/** @type {TableRow} */ (b.rows[0])))
  );
}

/** @param {TableRow} r */
function outcomesText(r) {
  const counts = r.facts.counts;
  return ["completed", "truncated", "failed", "skipped"].map((k) =>
    ["warmup", "performance", "sanity", "concurrency"].reduce((n, p) => n + (counts[p]?.[k] ?? 0), 0)
  ).join(" / ");
}

/** Columns a ranking's own heading already names are left out of its table. */
const RANKED_HEAD = ["Rank", "GPU", "Engine"];
const UNRANKED_HEAD = ["", "GPU, engine", "Model / quant / track", "Case @ concurrency"];
/** @param {boolean} burst */
const numberHead = (burst) => [
  "Input tok",
  "Cached tok",
  "Prompt tok/s",
  "Decode tok/s",
  ...(burst ? ["Aggregate tok/s"] : []),
  "TTFT s",
  "Capped",
  "Sanity",
  "Outcomes c/t/f/s",
  "Status, review level",
  "Evidence",
];

/**
 * A table row; `ranked`: in a ranking, whose heading names the setup; `burst`: the table has the aggregate column.
 * @param {SiteState} state @param {TableRow} r @param {string | number} rankCell @param {boolean} ranked @param {boolean} burst
 */
function resultRow(state, r, rankCell, ranked, burst) {
  const { row, facts } = r;
  const m = row.metrics;
  const setup = ranked ? [] : [
    h("td", {}, `${r.dims.model} / ${r.dims.quant} / ${r.dims.track}`),
    h("td", {}, `${row.caseId} @ ${row.concurrency}`),
  ];
  return h(
    "tr",
    { "data-run": r.entry.site.run_id ?? "", "data-case": row.caseId },
    h("td", { class: "rank" }, rankCell),
    ranked ? [h("td", {}, r.dims.gpu), h("td", {}, r.dims.engine)] : h("td", {}, r.dims.gpu, h("br"), r.dims.engine),
    setup,
    h("td", { class: "num" }, rangeText(row.inputTokens)),
    h("td", { class: "num" }, rangeText(row.cachedTokens)),
    h(
      "td",
      { class: "num" },
      statCell(m.prompt_tps, 1),
      row.caseId === "short" ? h("sup", { title: "fixed cost of a request" }, "*") : null,
    ),
    h("td", { class: "num" }, statCell(m.decode_tps, 1)),
    burst ? h("td", { class: "num" }, row.aggregateTps === null ? "" : statCell(row.aggregateTps, 1)) : null,
    h("td", { class: "num" }, statCell(m.ttft_s, 3)),
    h("td", { class: "num" }, `${row.capped}/${row.requests}`),
    h("td", { class: "num" }, ...qualityCell(facts)),
    h("td", { class: "num", title: "completed / truncated / failed / skipped" }, outcomesText(r)),
    h("td", {}, statusBadges(facts), verificationBadge(r.entry), rememberedMark(r.entry)),
    h("td", {}, pageLink(state, r.entry, "result"), " ", reviewLink(r.entry)),
  );
}

/** Columns given a width of their own (the rest share what is left of the window). @type {Record<string, string>} */
const COLUMN_CLASS = {
  "Rank": "col-narrow",
  "": "col-narrow",
  "Input tok": "col-count",
  "Cached tok": "col-count",
  "Capped": "col-count",
  "Sanity": "col-count",
  "Status, review level": "col-status",
  "Evidence": "col-link",
  "GPU, engine": "col-setup",
  "Model / quant / track": "col-setup",
};

/** @param {readonly string[]} head @param {readonly Node[]} rows */
function table(head, rows) {
  const th = (/** @type {string} */ t) => h("th", { class: COLUMN_CLASS[t] }, t);
  return h("table", {}, h("thead", {}, h("tr", {}, head.map(th))), h("tbody", {}, rows));
}

/** @param {SiteState} state */
function indexHeader(state) {
  const remembered = state.entries.filter((e) => e.checkedAt !== null).length;
  const done = state.entries.length === state.total;
  return [
    h("h1", {}, state.simulated ? "SIMULATED demo site" : "Approved standard benchmark results"),
    h(
      "p",
      { class: "built" },
      `Built from bench/approved.json on ${state.branch} at ${state.commit.slice(0, 12)}. `,
      done
        ? `Every entry below was checked in this browser (${state.entries.length} in ${state.seconds.toFixed(2)} s` +
          (remembered === 0 ? "): " : `; ${remembered} of them remembered from an earlier check here, marked so): `)
        : `Checking in this browser: ${state.entries.length} of ${state.total} entries checked so far, shown as they pass: `,
      "the SHA-256 of results.json against the reviewed hash, every evidence file against its hash, and the ",
      "sanity verdicts, counts, rates and per-case statistics recomputed from the evidence.",
    ),
  ];
}

/** The filters' choices, kept while the page is drawn again. @type {Record<string, string>} */
const chosen = {};

/**
 * The filter form: one select per comparison dimension (values from `rows`) and the metric to rank by.
 * @param {TableRow[]} rows @param {() => void} redraw
 */
function filterForm(rows, redraw) {
  const form = h("form", { class: "filters", id: "filters" });
  for (const [key, label] of DIMENSIONS) {
    const values = [...new Set(rows.map((r) => r.dims[key] ?? ""))].sort();
    const select = h(
      "select",
      { name: key, id: `filter-${key}` },
      h("option", { value: "" }, "all"),
      values.map((v) => h("option", { value: v, selected: chosen[key] === v }, v)),
    );
    form.append(h("label", {}, `${label} `, select));
  }
  form.append(h(
    "label",
    {},
    "Rank by ",
    h(
      "select",
      { name: "rank", id: "rank-by" },
      Object.entries(RANK_BY).map(([value, [text]]) => h("option", { value, selected: chosen.rank === value }, text)),
    ),
  ));
  form.addEventListener("change", (event) => {
    const select = /** @type {HTMLSelectElement} */ (event.target);
    chosen[select.name] = select.value;
    redraw();
  });
  return form;
}

/** @param {TableRow} r */
const keep = (r) => DIMENSIONS.every(([key]) => !chosen[key] || r.dims[key] === chosen[key]);

/** @param {Record<string, string>} dims @param {number} n @param {string} metric */
function rankingTitle(dims, n, metric) {
  return `${dims.case} at concurrency ${dims.concurrency}: ${dims.model}, ${dims.quant}, ${dims.track} track, ` +
    `protocol ${dims.protocol} (${n} result${n === 1 ? "" : "s"}, by ${
      RANK_BY[/** @type {keyof typeof RANK_BY} */ (metric)][0]
    })`;
}

/**
 * The ranked standard results: one table per ranking, each paged (its ranks run on across pages).
 * @param {SiteState} state @param {TableRow[]} rows @param {() => void} redraw
 */
function standardSection(state, rows, redraw) {
  const metric = /** @type {keyof typeof RANK_BY} */ (chosen.rank || "decode_tps");
  const list = rankings(rows.filter(keep), metric);
  return h(
    "section",
    { id: "standard" },
    h("h2", {}, "Standard results: complete runs"),
    h(
      "p",
      { class: "note" },
      `${list.length} ranking${list.length === 1 ? "" : "s"}. A ranking holds only results of one protocol, `,
      "track (default or custom), model, quantization, case and concurrency, ranked by the metric chosen above; ",
      "results in different rankings are never ranked against each other, and there is no combined score. ",
      "Rates and TTFT: the median, under it [min-max] and n over the case's valid requests. * The short prompt's " +
        "rate measures the fixed cost of a request.",
    ),
    list.length === 0 ? h("p", { class: "empty" }, "No complete standard result matches.") : list.map((g, i) => {
      const key = groupKey(/** @type {TableRow} */ (g.rows[0]));
      const { shown, pager } = paged(`ranking ${key}`, g.rows, redraw);
      return h(
        "div",
        { class: "ranking", "data-ranking": key },
        h("h3", {}, `Ranking ${i + 1}: `, rankingTitle(g.dims, g.rows.length, metric)),
        table(
          [...RANKED_HEAD, ...numberHead(g.dims.concurrency !== "1")],
          shown.map((r) => resultRow(state, r, g.rank.get(r) ?? "-", true, g.dims.concurrency !== "1")),
        ),
        pager,
      );
    }),
  );
}

/**
 * A list of rows that is never ranked (partial runs, pilot data).
 * @param {SiteState} state @param {TableRow[]} rows @param {{ id: string, title: string, note: string, cell: string, empty: string }} text
 * @param {() => void} redraw
 */
function unrankedSection(state, rows, text, redraw) {
  const { shown, pager } = paged(text.id, rows.filter(keep), redraw);
  return h(
    "section",
    { id: text.id, class: text.id === "pilot" ? "pilot" : undefined },
    h("h2", {}, text.title),
    h("p", { class: "note" }, text.note),
    shown.length === 0
      ? h("p", { class: "empty" }, text.empty)
      : table([...UNRANKED_HEAD, ...numberHead(true)], shown.map((r) => resultRow(state, r, text.cell, false, true))),
    pager,
  );
}

/**
 * One listed entry (never ranked): its badge, page link, `what` follows, its review and remembered mark, `after`.
 * @param {SiteState} state @param {VerifiedEntry} e @param {import("./app_dom.js").Child} badge
 * @param {import("./app_dom.js").Child} what @param {import("./app_dom.js").Child} [after]
 */
function entryItem(state, e, badge, what, after = null) {
  const attributes = { "data-run": e.site.run_id ?? "", "data-kind": e.kind };
  return h("li", attributes, badge, " ", pageLink(state, e), what, " ", reviewLink(e), " ", rememberedMark(e), after);
}

/**
 * Nonconforming and draft-protocol results: verified, reachable, outside the standard list.
 * @param {SiteState} state @param {VerifiedEntry[]} outside @param {() => void} redraw
 */
function outsideSection(state, outside, redraw) {
  const { shown, pager } = paged("outside", outside, redraw);
  return h(
    "section",
    { id: "outside" },
    h("h2", {}, "Outside the standard list: nonconforming and draft-protocol results"),
    h(
      "p",
      { class: "note" },
      "Reviewed and verified, but not comparable with standard results; their reports stay reachable. ",
      "Draft-protocol numbers are in the pilot data above.",
    ),
    outside.length === 0 ? h("p", { class: "empty" }, "None.") : h(
      "ul",
      { class: "entries" },
      shown.map((e) => {
        const f = /** @type {ResultFacts} */ (e.outcome.facts);
        const what = ` ${f.protocolId} / ${f.identity.gpu} / ${f.identity.model} / ${f.identity.quant} / sanity `;
        return entryItem(state, e, statusBadges(f), [what, ...qualityCell(f)]);
      }),
    ),
    pager,
  );
}

/**
 * Entries that failed or could not be verified: reasons, no numbers.
 * @param {SiteState} state @param {VerifiedEntry[]} rejected @param {() => void} redraw
 */
function rejectedSection(state, rejected, redraw) {
  const done = state.entries.length === state.total;
  const { shown, pager } = paged("rejected", rejected, redraw);
  return h(
    "section",
    { id: "rejected" },
    h("h2", {}, "Not shown: verification failed or impossible"),
    h(
      "p",
      { class: "note" },
      "These entries are in the manifest, but their evidence did not pass the check in this browser. None of their numbers are shown.",
    ),
    rejected.length === 0 ? h("p", { class: "empty" }, done ? "None: every entry passed." : "None so far.") : h(
      "ul",
      { class: "entries" },
      shown.map((e) =>
        entryItem(
          state,
          e,
          kindBadge(e.kind),
          null,
          h("ul", { class: "reasons" }, e.outcome.reasons.slice(0, 5).map((r) => h("li", {}, r))),
        )
      ),
    ),
    pager,
  );
}

/**
 * The index page; called again as entries verify (and when a filter changes).
 * @param {SiteState} state
 */
export function renderIndex(state) {
  const redraw = () => renderIndex(state);
  const header = indexHeader(state);
  if (state.manifestProblem !== null) {
    show(header, h("p", { class: "problem" }, `Nothing is listed: ${state.manifestProblem}`));
    return;
  }
  const superseded = state.entries.filter((e) => e.read?.entry?.superseded_by !== undefined);
  const by = (/** @type {VerifiedEntry["kind"][]} */ ...kinds) =>
    state.entries.filter((e) => kinds.includes(e.kind) && !superseded.includes(e));
  const standardRows = by("complete").flatMap(rowsOf);
  const partialRows = by("partial").flatMap(rowsOf);
  const pilotRows = by("draft").flatMap(rowsOf);
  const pilot = unrankedSection(state, pilotRows, {
    id: "pilot",
    title: "Pilot data: draft-protocol results, not standard results, never ranked",
    note: "Run on a draft protocol, whose workload may still change before it is frozen: these numbers show what " +
      "the pilot measured and are not comparable with standard results or with each other as a ranking.",
    cell: "pilot",
    empty: "No draft-protocol result.",
  }, redraw);
  // Until a protocol is activated every result is pilot data: it comes first then, not below two empty sections.
  const pilotFirst = standardRows.length === 0 && partialRows.length === 0 && pilotRows.length > 0;
  show(
    header,
    filterForm([...standardRows, ...partialRows, ...pilotRows], redraw),
    pilotFirst ? pilot : null,
    standardSection(state, standardRows, redraw),
    unrankedSection(state, partialRows, {
      id: "partial",
      title: "Partial runs: listed, never ranked",
      note: "Required work was skipped or interrupted; their numbers cover what ran.",
      cell: "not ranked",
      empty: "No partial standard run.",
    }, redraw),
    pilotFirst ? null : pilot,
    outsideSection(state, by("nonconforming", "draft"), redraw),
    rejectedSection(state, by("failed", "unverifiable"), redraw),
    historySection(state, superseded),
  );
}
