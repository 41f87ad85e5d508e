// @ts-check
/// <reference lib="dom" />
/** What the index and the result page both draw: status labels, links, tables and the sanity cell. */
import { badge, h, num, s } from "./app_dom.js";

/** @typedef {import("./app_state.js").SiteState} SiteState */
/** @typedef {import("./app_state.js").VerifiedEntry} VerifiedEntry */
/** @typedef {import("./facts.js").ResultFacts} ResultFacts */

const KIND_LABEL = /** @type {const} */ ({
  complete: ["complete", "ok"],
  partial: ["PARTIAL: not ranked", "warn"],
  nonconforming: ["NONCONFORMING", "bad"],
  draft: ["DRAFT PROTOCOL", "warn"],
  failed: ["VERIFICATION FAILED", "bad"],
  unverifiable: ["UNVERIFIABLE", "bad"],
});

/** @param {VerifiedEntry["kind"]} kind */
export function kindBadge(kind) {
  const [text, style] = KIND_LABEL[kind];
  return badge(text, style);
}

/** @param {ResultFacts} facts */
export function statusBadges(facts) {
  return [
    badge(facts.status, facts.status === "complete" ? "ok" : facts.status === "partial" ? "warn" : "bad"),
    facts.stage === "activated" ? null : badge("draft protocol", "warn"),
    facts.simulated ? badge("SIMULATED ENGINE", "bad") : null,
  ];
}

/** @param {VerifiedEntry} entry */
export function verificationBadge(entry) {
  const level = entry.read?.entry?.verification ?? "unknown";
  return badge(level, level === "independently-reproduced" ? "ok" : "info");
}

/** "remembered" when this browser's verdict is from an earlier visit (with when it checked). @param {VerifiedEntry} entry */
export function rememberedMark(entry) {
  if (entry.checkedAt === null) return null;
  return h(
    "span",
    { class: "remembered", title: `checked in this browser at ${entry.checkedAt}, remembered since` },
    "remembered",
  );
}

/** @param {SiteState} state @param {VerifiedEntry} entry */
export function pageLink(state, entry, text = entry.site.run_id ?? `entry ${entry.site.index}`) {
  return h("a", { href: `${state.root}r/${entry.site.slug}/` }, text);
}

/** @param {VerifiedEntry} entry */
export function reviewLink(entry) {
  const url = entry.read?.entry?.review_pr;
  return url === undefined ? "no review link" : h("a", { href: url, rel: "noopener noreferrer" }, "review");
}

/**
 * The sanity score, marked when some of its verdicts are the runner's statement, not recomputed.
 * @param {ResultFacts} facts
 */
export function qualityCell(facts) {
  const stated = facts.verdicts.filter((v) => v.stated).length;
  const title = `${stated} of these verdicts stated by the runner (redaction changed the answer), not recomputed here`;
  const counted = `${facts.verdicts.length - stated} recomputed, ${stated} stated`;
  return [`${facts.quality.passed}/12`, stated === 0 ? null : h("sup", { class: "stated", title }, counted)];
}

/** @param {readonly string[]} head @param {readonly Node[]} rows @param {Record<string, string>} [attributes] */
export function plainTable(head, rows, attributes = {}) {
  return h("table", attributes, h("thead", {}, h("tr", {}, head.map((t) => h("th", {}, t)))), h("tbody", {}, rows));
}

/** @param {readonly [string, import("./app_dom.js").Child][]} pairs @param {Record<string, string>} [attributes] */
export function factList(pairs, attributes = {}) {
  return h("dl", { class: "facts", ...attributes }, pairs.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

/**
 * A range chart: one bar per case from min to max with the median marked.
 * @param {string} title @param {{ label: string, stat: import("./facts.js").Stat | undefined }[]} rows
 * @param {string} unit
 */
export function rangeChart(title, rows, unit) {
  const known = rows.filter((r) => r.stat !== undefined && r.stat.median !== null);
  if (known.length === 0) return null;
  const top = Math.max(...known.map((r) => r.stat?.max ?? 0)) * 1.1 || 1;
  const width = 640;
  const left = 110;
  const barHeight = 26;
  const height = 40 + rows.length * barHeight;
  const x = (/** @type {number} */ v) => left + (v / top) * (width - left - 90);
  return h(
    "figure",
    { class: "chart" },
    s(
      "svg",
      { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": title },
      s("text", { x: 0, y: 16, class: "chart-title" }, `${title} (${unit}), median with min-max`),
      rows.map((r, i) => {
        const y = 34 + i * barHeight;
        const st = r.stat;
        if (st === undefined || st.median === null || st.min === null || st.max === null) {
          return s(
            "g",
            {},
            s("text", { x: 0, y: y + 12 }, r.label),
            s("text", { x: left, y: y + 12, class: "muted" }, "not measured"),
          );
        }
        return s(
          "g",
          {},
          s("text", { x: 0, y: y + 12 }, r.label),
          s("rect", { x: left, y: y + 2, width: Math.max(1, x(st.median) - left), height: 12, class: "bar" }),
          s("line", { x1: x(st.min), x2: x(st.max), y1: y + 8, y2: y + 8, class: "whisker" }),
          s("line", { x1: x(st.min), x2: x(st.min), y1: y + 3, y2: y + 13, class: "whisker" }),
          s("line", { x1: x(st.max), x2: x(st.max), y1: y + 3, y2: y + 13, class: "whisker" }),
          s("text", { x: x(st.max) + 6, y: y + 12 }, `${num(st.median, unit === "s" ? 3 : 1)} (n=${st.n})`),
        );
      }),
    ),
  );
}

/**
 * Records replaced after a new review (kept in the manifest, marked superseded: never ranked) and results the
 * manifest withdrew (run id, reason, review; no numbers).
 * @param {SiteState} state @param {VerifiedEntry[]} superseded
 */
export function historySection(state, superseded) {
  return h(
    "section",
    { id: "history" },
    h("h2", {}, "Replaced and withdrawn: never ranked, no numbers"),
    superseded.length === 0 ? null : h(
      "ul",
      { class: "entries", id: "superseded" },
      superseded.map((e) =>
        h(
          "li",
          { "data-run": e.site.run_id ?? "", "data-kind": "superseded" },
          pageLink(state, e),
          " superseded after ",
          h("a", { href: e.read?.entry?.superseded_by?.review_pr ?? "", rel: "noopener noreferrer" }, "a new review"),
          ` (${e.read?.entry?.superseded_by?.reviewed_at})`,
        )
      ),
    ),
    h(
      "ul",
      { class: "entries", id: "withdrawn" },
      state.withdrawn.length === 0
        ? h("li", { class: "empty" }, "No result was withdrawn.")
        : state.withdrawn.map((w) =>
          h(
            "li",
            { "data-run": w.run_id },
            h("code", {}, w.run_id),
            ` withdrawn at ${w.withdrawn_at}: ${w.reason} `,
            h("a", { href: w.review_pr, rel: "noopener noreferrer" }, "review"),
          )
        ),
    ),
  );
}

/**
 * Rows a paged table or list shows at once: 50, or the address's `?rows=N` (1 to 1000), so that an index of ten
 * thousand entries draws a few hundred rows, whatever the count.
 */
export const PAGE_ROWS = (() => {
  const n = Number(new URLSearchParams(globalThis.location?.search ?? "").get("rows"));
  return Number.isInteger(n) && n >= 1 && n <= 1000 ? n : 50;
})();

/** The page each paged table or list shows, by its key, kept while the page is drawn again. @type {Map<string, number>} */
const pageOf = new Map();

/**
 * The part of `items` a paged table or list shows now, and its pager ("previous", which rows of how many, "next";
 * none when all fit); a button draws the page again through `redraw`.
 * @template T @param {string} key @param {readonly T[]} items @param {() => void} redraw
 * @returns {{ shown: T[], pager: HTMLElement | null }}
 */
export function paged(key, items, redraw) {
  const pages = Math.max(1, Math.ceil(items.length / PAGE_ROWS));
  const page = Math.min(pageOf.get(key) ?? 0, pages - 1);
  const shown = items.slice(page * PAGE_ROWS, (page + 1) * PAGE_ROWS);
  if (pages === 1) return { shown, pager: null };
  const button = (/** @type {string} */ text, /** @type {number} */ to) => {
    const b = h("button", { type: "button", disabled: to < 0 || to >= pages, "data-to": String(to + 1) }, text);
    b.addEventListener("click", () => {
      pageOf.set(key, to);
      redraw();
    });
    return b;
  };
  const first = page * PAGE_ROWS + 1;
  return {
    shown,
    pager: h(
      "p",
      { class: "pager" },
      button("previous", page - 1),
      ` rows ${first}-${first + shown.length - 1} of ${items.length} (page ${page + 1} of ${pages}) `,
      button("next", page + 1),
    ),
  };
}
