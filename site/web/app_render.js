// @ts-check
/// <reference lib="dom" />
/**
 * The index and result pages, drawn from verified entries only. The index keeps complete standard results (ranked
 * per case and concurrency by one chosen metric, never by a combined score), partial runs (listed, never ranked),
 * nonconforming and draft-protocol results (outside the standard list, their pages reachable) and entries that
 * failed or could not be verified (reasons, no numbers) in separate, labelled sections.
 */
import { badge, h, num, rangeText, s, show, statText } from "./app_dom.js";

/** @typedef {import("./app.js").SiteState} SiteState */
/** @typedef {import("./app.js").VerifiedEntry} VerifiedEntry */
/** @typedef {import("./facts.js").ResultFacts} ResultFacts */
/** @typedef {import("./facts.js").CaseRow} CaseRow */

const KIND_LABEL = /** @type {const} */ ({
  complete: ["complete", "ok"],
  partial: ["PARTIAL: not ranked", "warn"],
  nonconforming: ["NONCONFORMING", "bad"],
  draft: ["DRAFT PROTOCOL", "warn"],
  failed: ["VERIFICATION FAILED", "bad"],
  unverifiable: ["UNVERIFIABLE", "bad"],
});

/** @param {VerifiedEntry["kind"]} kind */
function kindBadge(kind) {
  const [text, style] = KIND_LABEL[kind];
  return badge(text, style);
}

/** @param {ResultFacts} facts */
function statusBadges(facts) {
  return [
    badge(facts.status, facts.status === "complete" ? "ok" : facts.status === "partial" ? "warn" : "bad"),
    facts.stage === "activated" ? null : badge("draft protocol", "warn"),
    facts.simulated ? badge("SIMULATED ENGINE", "bad") : null,
  ];
}

/** @param {VerifiedEntry} entry */
function verificationBadge(entry) {
  const level = entry.read?.entry?.verification ?? "unknown";
  return badge(level, level === "independently-reproduced" ? "ok" : "info");
}

/** @param {SiteState} state @param {VerifiedEntry} entry */
function pageLink(state, entry, text = entry.site.run_id ?? `entry ${entry.site.index}`) {
  return h("a", { href: `${state.root}r/${entry.site.slug}/` }, text);
}

/** @param {VerifiedEntry} entry */
function reviewLink(entry) {
  const url = entry.read?.entry?.review_pr;
  return url === undefined ? "no review link" : h("a", { href: url, rel: "noopener noreferrer" }, "review");
}

const DIMENSIONS = /** @type {const} */ ([
  ["gpu", "GPU"],
  ["model", "Model"],
  ["quant", "Quant"],
  ["track", "Track"],
  ["engine", "Engine"],
  ["case", "Case"],
  ["concurrency", "Concurrency"],
]);

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

/**
 * Ranks complete rows within each (protocol, case, concurrency) group by one metric's median; rows without it
 * get no rank. @param {TableRow[]} rows @param {keyof typeof RANK_BY} metric @returns {Map<TableRow, number>}
 */
function ranks(rows, metric) {
  /** @type {Map<string, TableRow[]>} */
  const groups = new Map();
  for (const row of rows) {
    const key = `${row.facts.protocolId}|${row.row.caseId}|${row.row.concurrency}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const direction = RANK_BY[metric][1];
  /** @type {Map<TableRow, number>} */
  const rank = new Map();
  for (const group of groups.values()) {
    const valued = group.filter((r) => r.row.metrics[metric]?.median != null);
    valued.sort((a, b) => direction * ((a.row.metrics[metric]?.median ?? 0) - (b.row.metrics[metric]?.median ?? 0)));
    valued.forEach((r, i) => rank.set(r, i + 1));
  }
  return rank;
}

/** @param {SiteState} state @param {TableRow} r @param {string | number} rankCell */
function resultRow(state, r, rankCell) {
  const { row, facts } = r;
  const m = row.metrics;
  const counts = facts.counts;
  const outcomes = ["completed", "truncated", "failed", "skipped"].map((k) =>
    ["warmup", "performance", "sanity", "concurrency"].reduce((n, p) => n + (counts[p]?.[k] ?? 0), 0)
  );
  return h(
    "tr",
    { "data-run": r.entry.site.run_id ?? "", "data-case": row.caseId },
    h("td", { class: "rank" }, rankCell),
    ...DIMENSIONS.map(([key]) => h("td", {}, r.dims[key] ?? "")),
    h("td", { class: "num" }, rangeText(row.inputTokens)),
    h("td", { class: "num" }, rangeText(row.cachedTokens)),
    h(
      "td",
      { class: "num" },
      statText(m.prompt_tps, 1),
      row.caseId === "short" ? h("sup", { title: "fixed cost of a request" }, "*") : null,
    ),
    h("td", { class: "num" }, statText(m.decode_tps, 1)),
    h("td", { class: "num" }, row.aggregateTps === null ? "" : statText(row.aggregateTps, 1)),
    h("td", { class: "num" }, statText(m.ttft_s, 3)),
    h("td", { class: "num" }, `${row.capped}/${row.requests}`),
    h("td", { class: "num" }, ...qualityCell(facts)),
    h("td", { class: "num", title: "completed / truncated / failed / skipped" }, outcomes.join(" / ")),
    h("td", {}, statusBadges(facts)),
    h("td", {}, verificationBadge(r.entry)),
    h("td", {}, pageLink(state, r.entry, "result"), " ", reviewLink(r.entry)),
  );
}

/**
 * The sanity score of an index row, marked when some of its verdicts are the runner's statement, not recomputed.
 * @param {ResultFacts} facts
 */
function qualityCell(facts) {
  const stated = facts.verdicts.filter((v) => v.stated).length;
  const title = `${stated} of these verdicts stated by the runner (redaction changed the answer), not recomputed here`;
  return [`${facts.quality.passed}/12`, stated === 0 ? null : h("sup", { class: "stated", title }, `${stated} stated`)];
}

const HEAD = [
  "Rank",
  ...DIMENSIONS.map(([, label]) => label),
  "Input tok",
  "Cached tok",
  "Prompt tok/s median [range]",
  "Decode tok/s median [range]",
  "Aggregate tok/s",
  "TTFT s",
  "Capped",
  "Sanity",
  "Outcomes c/t/f/s",
  "Status",
  "Verification",
  "Evidence",
];

/** @param {readonly Node[]} rows @param {string} empty */
function table(rows, empty) {
  if (rows.length === 0) return h("p", { class: "empty" }, empty);
  return h(
    "div",
    { class: "scroll" },
    h("table", {}, h("thead", {}, h("tr", {}, HEAD.map((t) => h("th", {}, t)))), h("tbody", {}, rows)),
  );
}

/** @param {SiteState} state */
function indexHeader(state) {
  return [
    h("h1", {}, "Approved standard benchmark results"),
    h(
      "p",
      { class: "built" },
      `Built from bench/approved.json on ${state.branch} at ${state.commit.slice(0, 12)}. `,
      `Every entry below was checked in this browser (${state.entries.length} in ${state.seconds.toFixed(2)} s): `,
      "the SHA-256 of results.json against the reviewed hash, every evidence file against its hash, and the ",
      "sanity verdicts, counts, rates and per-case statistics recomputed from the evidence.",
    ),
  ];
}

/**
 * The filter form: one select per comparison dimension (values from `rows`) and the metric to rank by.
 * @param {TableRow[]} rows
 */
function filterForm(rows) {
  const form = h("form", { class: "filters", id: "filters" });
  /** @type {Record<string, HTMLSelectElement>} */
  const selects = {};
  for (const [key, label] of DIMENSIONS) {
    const values = [...new Set(rows.map((r) => r.dims[key] ?? ""))].sort();
    const select = /** @type {HTMLSelectElement} */ (h(
      "select",
      { name: key, id: `filter-${key}` },
      h("option", { value: "" }, "all"),
      values.map((v) => h("option", { value: v }, v)),
    ));
    selects[key] = select;
    form.append(h("label", {}, `${label} `, select));
  }
  const rankBy = /** @type {HTMLSelectElement} */ (h(
    "select",
    { name: "rank", id: "rank-by" },
    Object.entries(RANK_BY).map(([value, [text]]) => h("option", { value }, text)),
  ));
  form.append(h("label", {}, "Rank by ", rankBy));
  const keep = (/** @type {TableRow} */ r) =>
    DIMENSIONS.every(([key]) => !selects[key]?.value || r.dims[key] === selects[key]?.value);
  return { form, keep, metric: () => /** @type {keyof typeof RANK_BY} */ (rankBy.value) };
}

/**
 * The standard (ranked) and partial (never ranked) tables, drawn again when a filter changes.
 * @param {SiteState} state @param {TableRow[]} standardRows @param {TableRow[]} partialRows
 * @param {ReturnType<typeof filterForm>} filters
 */
function rankedSections(state, standardRows, partialRows, filters) {
  const standard = h("section", { id: "standard" });
  const partial = h("section", { id: "partial" });
  const draw = () => {
    const metric = filters.metric();
    const shown = standardRows.filter(filters.keep);
    const rank = ranks(shown, metric);
    shown.sort((a, b) =>
      a.row.caseId.localeCompare(b.row.caseId) || a.row.concurrency - b.row.concurrency ||
      (rank.get(a) ?? 1e9) - (rank.get(b) ?? 1e9)
    );
    standard.replaceChildren(
      h("h2", {}, "Standard results: complete runs"),
      h(
        "p",
        { class: "note" },
        "Ranked within each case and concurrency by the metric chosen above; there is no combined score. ",
        "Ranges are min-max over the case's valid requests. * The short prompt's rate measures the fixed cost of a request.",
      ),
      table(shown.map((r) => resultRow(state, r, rank.get(r) ?? "-")), "No complete standard result matches."),
    );
    partial.replaceChildren(
      h("h2", {}, "Partial runs: listed, never ranked"),
      h("p", { class: "note" }, "Required work was skipped or interrupted; their numbers cover what ran."),
      table(partialRows.filter(filters.keep).map((r) => resultRow(state, r, "not ranked")), "No partial standard run."),
    );
  };
  filters.form.addEventListener("change", draw);
  draw();
  return [standard, partial];
}

/** Nonconforming and draft-protocol results: verified, reachable, outside the standard list. @param {SiteState} state @param {VerifiedEntry[]} outside */
function outsideSection(state, outside) {
  return h(
    "section",
    { id: "outside" },
    h("h2", {}, "Outside the standard list: nonconforming and draft-protocol results"),
    h(
      "p",
      { class: "note" },
      "Reviewed and verified, but not comparable with standard results; their reports stay reachable.",
    ),
    outside.length === 0 ? h("p", { class: "empty" }, "None.") : h(
      "ul",
      { class: "entries" },
      outside.map((e) => {
        const f = /** @type {ResultFacts} */ (e.outcome.facts);
        return h(
          "li",
          { "data-run": e.site.run_id ?? "", "data-kind": e.kind },
          statusBadges(f),
          " ",
          pageLink(state, e),
          ` ${f.protocolId} / ${f.identity.gpu} / ${f.identity.model} / ${f.identity.quant} / sanity `,
          ...qualityCell(f),
          " ",
          reviewLink(e),
        );
      }),
    ),
  );
}

/** Entries that failed or could not be verified: reasons, no numbers. @param {SiteState} state @param {VerifiedEntry[]} rejected */
function rejectedSection(state, rejected) {
  return h(
    "section",
    { id: "rejected" },
    h("h2", {}, "Not shown: verification failed or impossible"),
    h(
      "p",
      { class: "note" },
      "These entries are in the manifest, but their evidence did not pass the check in this browser. None of their numbers are shown.",
    ),
    rejected.length === 0 ? h("p", { class: "empty" }, "None: every entry passed.") : h(
      "ul",
      { class: "entries" },
      rejected.map((e) =>
        h(
          "li",
          { "data-run": e.site.run_id ?? "", "data-kind": e.kind },
          kindBadge(e.kind),
          " ",
          pageLink(state, e),
          " ",
          reviewLink(e),
          h("ul", { class: "reasons" }, e.outcome.reasons.slice(0, 5).map((r) => h("li", {}, r))),
        )
      ),
    ),
  );
}

/**
 * The index page.
 * @param {SiteState} state
 */
export function renderIndex(state) {
  const header = indexHeader(state);
  if (state.manifestProblem !== null) {
    show(header, h("p", { class: "problem" }, `Nothing is listed: ${state.manifestProblem}`));
    return;
  }
  const by = (/** @type {VerifiedEntry["kind"][]} */ ...kinds) => state.entries.filter((e) => kinds.includes(e.kind));
  const standardRows = by("complete").flatMap(rowsOf);
  const partialRows = by("partial").flatMap(rowsOf);
  const filters = filterForm([...standardRows, ...partialRows]);
  show(
    header,
    filters.form,
    rankedSections(state, standardRows, partialRows, filters),
    outsideSection(state, by("nonconforming", "draft")),
    rejectedSection(state, by("failed", "unverifiable")),
  );
}

/**
 * A range chart: one bar per case from min to max with the median marked.
 * @param {string} title @param {{ label: string, stat: import("./facts.js").Stat | undefined }[]} rows
 * @param {string} unit
 */
function rangeChart(title, rows, unit) {
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

/** @param {[string, import("./app_dom.js").Child][]} pairs */
function facts(pairs) {
  return h("dl", { class: "facts" }, pairs.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

/**
 * The pictures the run drew (SVG provenance artifacts), shown apart from what this browser verified: their bytes
 * match their hashes, but this page does not draw them again, so they are labelled as the runner's drawings. The
 * charts above are drawn here from the recomputed numbers. An <img> runs no script.
 * @param {SiteState} state @param {ResultFacts} f
 */
function runnerDrawings(state, f) {
  const list = f.artifacts.filter((a) => a.path.endsWith(".svg"));
  if (list.length === 0) return null;
  return h(
    "section",
    { id: "runner-drawings", class: "unchecked" },
    h("h2", {}, "The runner's drawings (not recomputed here)"),
    h(
      "p",
      { class: "note" },
      "Pictures the run drew from its own results.json. Their files match their SHA-256, but this browser does not ",
      "draw them again, so they are not verified numbers: the tables and charts above are.",
    ),
    list.map((a) => {
      const img =
        /** @type {HTMLImageElement} */ (h("img", { alt: `${a.path} (drawn by the runner)`, class: "picture" }));
      void fetch(`${state.root}evidence/sha256/${a.sha256}`).then((r) => r.arrayBuffer()).then((bytes) => {
        img.src = URL.createObjectURL(new Blob([bytes], { type: "image/svg+xml" }));
      });
      return h("figure", {}, img, h("figcaption", {}, `${a.path}: drawn by the runner, not recomputed`));
    }),
  );
}

/** @param {string[]} head @param {Node[]} rows @param {Record<string, string>} [attributes] */
function plainTable(head, rows, attributes = {}) {
  return h("table", attributes, h("thead", {}, h("tr", {}, head.map((t) => h("th", {}, t)))), h("tbody", {}, rows));
}

/** @param {VerifiedEntry} entry */
function reviewFacts(entry) {
  const manifestEntry = entry.read?.entry ?? null;
  if (manifestEntry === null) return h("p", { class: "problem" }, "The manifest entry is malformed.");
  return facts([
    ["Verification level", verificationBadge(entry)],
    ["Reviewed by", manifestEntry.reviewed_by],
    ["Reviewed at", manifestEntry.reviewed_at],
    ["Review", reviewLink(entry)],
    ["Evidence commit", h("code", {}, manifestEntry.evidence_commit)],
    ["Results path", h("code", {}, manifestEntry.results_path)],
    ["results.json SHA-256", h("code", {}, manifestEntry.results_sha256)],
  ]);
}

/**
 * The reproductions an entry links to, with what differs (another person's hardware may differ).
 * @param {SiteState} state @param {VerifiedEntry} entry
 */
function reproductionsTable(state, entry) {
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
  ];
}

/** @param {ResultFacts} f */
function identityFacts(f) {
  return facts([
    ["GPU", f.identity.gpu],
    ["CPU", f.identity.cpu],
    ["OS", f.identity.os],
    ["Model", f.identity.model],
    ["Quantization", f.identity.quant],
    ["Track", `${f.identity.track}: ${f.identity.trackNotes}`],
    ["Engine", `${f.identity.engine} (commit ${f.identity.engineCommit})`],
    ["Runner commit", f.identity.runnerCommit],
    ["Context / server capacity", `${f.identity.contextTokens} tokens / ${f.identity.serverCapacity} slot(s)`],
    ["Started", f.startedAt],
    ["Required stages", f.requiredDurationS === null ? "not measured" : `${num(f.requiredDurationS, 1)} s`],
    [
      "Optional concurrency",
      !f.optionalConcurrency
        ? "not selected"
        : f.optionalDurationS === null
        ? "not measured"
        : `${num(f.optionalDurationS, 1)} s`,
    ],
  ]);
}

const CASE_HEAD = [
  "Case",
  "Concurrency",
  "Capped",
  "Input tok",
  "Cached tok",
  "Output tok",
  "Prompt tok/s",
  "Decode tok/s",
  "Aggregate tok/s",
  "TTFT s",
  "First answer s",
  "Total s",
];

/** The per-case table and the charts drawn here from the recomputed numbers. @param {ResultFacts} f */
function casesSection(f) {
  const rows = f.cases.map((row) =>
    h(
      "tr",
      {},
      h("td", {}, row.caseId),
      h("td", { class: "num" }, row.concurrency),
      h("td", { class: "num" }, `${row.capped}/${row.requests}`),
      h("td", { class: "num" }, rangeText(row.inputTokens)),
      h("td", { class: "num" }, rangeText(row.cachedTokens)),
      h("td", { class: "num" }, rangeText(row.outputTokens)),
      h("td", { class: "num" }, statText(row.metrics.prompt_tps, 1)),
      h("td", { class: "num" }, statText(row.metrics.decode_tps, 1)),
      h("td", { class: "num" }, row.aggregateTps === null ? "" : statText(row.aggregateTps, 1)),
      h("td", { class: "num" }, statText(row.metrics.ttft_s, 3)),
      h("td", { class: "num" }, statText(row.metrics.first_answer_s, 3)),
      h("td", { class: "num" }, statText(row.metrics.total_s, 3)),
    )
  );
  const chartRows = (/** @type {string} */ metric) =>
    f.cases.map((row) => ({ label: `${row.caseId} c=${row.concurrency}`, stat: row.metrics[metric] }));
  return [
    h("h2", {}, "Performance per case"),
    h("div", { class: "scroll" }, plainTable(CASE_HEAD, rows, { id: "cases" })),
    h(
      "div",
      { class: "charts" },
      rangeChart("Decode", chartRows("decode_tps"), "tok/s"),
      rangeChart("Prompt", chartRows("prompt_tps"), "tok/s"),
      rangeChart("TTFT", chartRows("ttft_s"), "s"),
    ),
  ];
}

/** @param {ResultFacts} f */
function roundsSection(f) {
  if (f.rounds.length === 0) return null;
  const rows = f.rounds.map((r) =>
    h(
      "tr",
      {},
      h("td", {}, r.round),
      h("td", {}, r.request_ids.join(", ")),
      h("td", { class: "num" }, num(r.wall_s, 3)),
      h("td", { class: "num" }, r.output_tokens ?? "not measured"),
      h("td", { class: "num" }, num(r.aggregate_tps, 1)),
      h("td", { class: "num" }, r.failed),
    )
  );
  return [
    h("h2", {}, "Concurrency rounds"),
    plainTable(["Round", "Requests", "Wall s", "Output tokens", "Aggregate tok/s", "Failed"], rows),
  ];
}

/** @param {ResultFacts} f */
function sanitySection(f) {
  const rows = f.verdicts.map((v) =>
    h(
      "tr",
      {},
      h("td", {}, v.caseId),
      h("td", {}, v.category),
      h(
        "td",
        {},
        badge(v.passed ? "pass" : "fail", v.passed ? "ok" : "bad"),
        v.stated ? " stated by the runner" : null,
      ),
      h("td", {}, v.reason),
    )
  );
  return [
    h("h2", {}, `Sanity checks: ${f.quality.passed}/12`),
    h("p", {}, Object.entries(f.quality.categories).map(([k, v]) => `${k} ${v.passed}/${v.total}`).join(", ")),
    plainTable(["Case", "Category", "Verdict", "Why (recomputed here unless stated)"], rows, { id: "sanity" }),
    ...statedSection(f),
  ];
}

/**
 * Record values the runner stated because redaction changed the text they were computed from: named, never
 * presented as verified.
 * @param {ResultFacts} f
 */
function statedSection(f) {
  if (f.statedValues.length === 0) return [];
  return [
    h("h3", {}, "Values stated by the runner, not recomputed"),
    h(
      "p",
      { class: "stated" },
      "Redaction changed the published text these values were computed from (a private name or address in an " +
        "answer or an error), so this page cannot recompute them from the evidence. They are the runner's verdicts " +
        "on the text as the engine sent it; results.json lists each of them, and the reviewer read them.",
    ),
    h("ul", { id: "stated" }, f.statedValues.map((s) => h("li", {}, `${s.id}: ${s.pointers.join(", ")}`))),
  ];
}

/** @param {ResultFacts} f */
function failuresSection(f) {
  return [
    h("h2", {}, "Failures and status"),
    f.failures.length === 0
      ? h("p", {}, "Every scheduled request completed or reached its cap.")
      : h("ul", {}, f.failures.map((x) => h("li", {}, `${x.id}: ${x.status}: ${x.reason}`))),
    f.statusReasons.length === 0 && f.nonconformities.length === 0 ? null : h(
      "ul",
      { class: "reasons" },
      f.statusReasons.map((r) => h("li", {}, `the run says: ${r}`)),
      f.nonconformities.map((r) => h("li", {}, `the evidence shows: ${r}`)),
    ),
  ];
}

/** @param {string} href @param {string} name */
function download(href, name) {
  return h("a", { href, download: name.split("/").at(-1) ?? name }, name);
}

/**
 * Every evidence file by its hash, the runner's pictures among them.
 * @param {SiteState} state @param {import("./check_result.js").CheckOutcome} outcome @param {ResultFacts} f
 */
function evidenceSection(state, outcome, f) {
  const results = h(
    "tr",
    {},
    h("td", {}, "results"),
    h("td", {}, download(`${state.root}evidence/sha256/${outcome.resultsSha256}`, "results.json")),
    h("td", {}, h("code", {}, outcome.resultsSha256 ?? "")),
    h("td", {}, ""),
  );
  const rows = f.artifacts.map((a) =>
    h(
      "tr",
      {},
      h("td", {}, a.kind),
      h("td", {}, download(`${state.root}evidence/sha256/${a.sha256}`, a.path)),
      h("td", {}, h("code", {}, a.sha256)),
      h("td", { class: "num" }, a.size),
    )
  );
  return [
    h("h2", {}, "Evidence files"),
    plainTable(["Kind", "File", "SHA-256", "Bytes"], [results, ...rows], { id: "evidence" }),
  ];
}

/**
 * One result's page.
 * @param {SiteState} state @param {string} slug
 */
export function renderResult(state, slug) {
  const entry = state.entries.find((e) => e.site.slug === slug);
  if (state.manifestProblem !== null || entry === undefined) {
    show(
      h("h1", {}, "Not in the approved list"),
      h(
        "p",
        { class: "problem" },
        state.manifestProblem ?? "This entry is not in the current manifest (withdrawn, or never approved).",
      ),
    );
    return;
  }
  const outcome = entry.outcome;
  const title = h("h1", {}, `Result ${entry.site.run_id ?? slug} `, kindBadge(entry.kind));
  if (outcome.state !== "verified" || outcome.facts === null) {
    show(
      title,
      h(
        "section",
        { class: "verdict verdict-bad", id: "verdict" },
        h("h2", {}, outcome.state === "failed" ? "Verification failed" : "Cannot be verified"),
        h("p", {}, "None of this result's numbers are shown. Reasons:"),
        h("ul", { class: "reasons" }, outcome.reasons.map((r) => h("li", {}, r))),
      ),
      h("h2", {}, "Review"),
      reviewFacts(entry),
    );
    return;
  }
  const f = outcome.facts;
  show(
    title,
    h("p", {}, statusBadges(f), " ", verificationBadge(entry), ` protocol ${f.protocolId} (${f.stage})`),
    h(
      "section",
      { class: "verdict verdict-ok", id: "verdict" },
      h("h2", {}, "Verified in this browser"),
      h("ul", {}, outcome.checks.map((c) => h("li", {}, c))),
    ),
    h("h2", {}, "Machine, model and configuration"),
    identityFacts(f),
    h("h2", {}, "Review"),
    reviewFacts(entry),
    reproductionsTable(state, entry),
    casesSection(f),
    roundsSection(f),
    sanitySection(f),
    failuresSection(f),
    evidenceSection(state, outcome, f),
    runnerDrawings(state, f),
  );
}
