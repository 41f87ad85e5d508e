// @ts-check
/// <reference lib="dom" />
/**
 * One result's page, drawn from a verified entry only: the headline numbers first (labelled pilot data on a draft
 * protocol), what this browser verified, the per-case performance, rounds, sanity and failures, then everything
 * results.json records (page_record.js), the review and the evidence files. An entry that failed or could not be
 * verified shows its reasons and none of its numbers.
 */
import { badge, h, num, rangeText, show, statCell } from "./app_dom.js";
import {
  factList,
  kindBadge,
  pageLink,
  plainTable,
  rangeChart,
  rememberedMark,
  reviewLink,
  statusBadges,
  verificationBadge,
} from "./page_common.js";
import { recordSections } from "./page_record.js";
import { reproductionsTable } from "./page_reproductions.js";

/** @typedef {import("./app_state.js").SiteState} SiteState */
/** @typedef {import("./app_state.js").VerifiedEntry} VerifiedEntry */
/** @typedef {import("./facts.js").ResultFacts} ResultFacts */

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

/** @param {VerifiedEntry} entry */
function reviewFacts(entry) {
  const manifestEntry = entry.read?.entry ?? null;
  if (manifestEntry === null) return h("p", { class: "problem" }, "The manifest entry is malformed.");
  return factList([
    ["Verification level", verificationBadge(entry)],
    [
      "Checked in this browser",
      entry.checkedAt === null ? "now" : [`at ${entry.checkedAt}, remembered since `, rememberedMark(entry)],
    ],
    ["Reviewed by", manifestEntry.reviewed_by],
    ["Reviewed at", manifestEntry.reviewed_at],
    ["Review", reviewLink(entry)],
    ["Evidence commit", h("code", {}, manifestEntry.evidence_commit)],
    ["Results path", h("code", {}, manifestEntry.results_path)],
    ["results.json SHA-256", h("code", {}, manifestEntry.results_sha256)],
  ]);
}

/**
 * What a replacement says (`approved add --replace`): on a superseded record, the entry and review that replaced it;
 * on the replacing entry, the record it replaced. Null for an entry of neither kind.
 * @param {SiteState} state @param {VerifiedEntry} entry
 */
function replacement(state, entry) {
  const self = entry.read?.entry ?? null;
  if (self === null) return null;
  const same = state.entries.filter((e) => e !== entry && e.read?.entry?.run_id === self.run_id);
  const by = self.superseded_by;
  if (by !== undefined) {
    const newer = same.find((e) => e.read?.entry?.results_sha256 === by.results_sha256 && !e.read.entry.superseded_by);
    return h(
      "section",
      { class: "note", id: "superseded" },
      h("h2", {}, "Superseded: not ranked"),
      h(
        "p",
        {},
        "This record was replaced after a new review (",
        h("a", { href: by.review_pr, rel: "noopener noreferrer" }, "the review that replaced it"),
        `, ${by.reviewed_at}) by `,
        newer === undefined
          ? `the entry with results SHA-256 ${by.results_sha256}`
          : pageLink(state, newer, "the new entry"),
        ` of run ${self.run_id}. It stays in the manifest as the record of what was approved before.`,
      ),
    );
  }
  const older = same.filter((e) => e.read?.entry?.superseded_by?.results_sha256 === self.results_sha256);
  return older.length === 0 ? null : h(
    "section",
    { class: "note", id: "replaces" },
    h("h2", {}, "Replaces an earlier record"),
    ...older.map((e) =>
      h(
        "p",
        {},
        "This entry replaced ",
        pageLink(state, e, "the record"),
        ` of run ${self.run_id} reviewed at ${e.read?.entry?.reviewed_at} (`,
        reviewLink(e),
        "), which stays in the manifest marked superseded.",
      )
    ),
  );
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
      h("td", { class: "num" }, statCell(row.metrics.prompt_tps, 1)),
      h("td", { class: "num" }, statCell(row.metrics.decode_tps, 1)),
      h("td", { class: "num" }, row.aggregateTps === null ? "" : statCell(row.aggregateTps, 1)),
      h("td", { class: "num" }, statCell(row.metrics.ttft_s, 3)),
      h("td", { class: "num" }, statCell(row.metrics.first_answer_s, 3)),
      h("td", { class: "num" }, statCell(row.metrics.total_s, 3)),
    )
  );
  const chartRows = (/** @type {string} */ metric) =>
    f.cases.map((row) => ({ label: `${row.caseId} c=${row.concurrency}`, stat: row.metrics[metric] }));
  return [
    h("h2", {}, "Performance per case"),
    plainTable(CASE_HEAD, rows, { id: "cases" }),
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

/** The headline: per case the three medians, with sanity, outcomes and duration (labelled pilot data on a draft). @param {ResultFacts} f */
function headline(f) {
  const pilot = f.stage !== "activated";
  const rows = f.cases.map((row) =>
    h(
      "tr",
      {},
      h("td", {}, `${row.caseId} @ ${row.concurrency}`),
      h("td", { class: "num big" }, num(row.metrics.decode_tps?.median, 1)),
      h("td", { class: "num big" }, num(row.metrics.prompt_tps?.median, 1)),
      h("td", { class: "num big" }, num(row.metrics.ttft_s?.median, 3)),
      h("td", { class: "num" }, row.aggregateTps === null ? "" : num(row.aggregateTps.median, 1)),
      h("td", { class: "num" }, `${row.capped}/${row.requests}`),
    )
  );
  return h(
    "section",
    { id: "headline", class: pilot ? "headline pilot" : "headline" },
    h(
      "h2",
      {},
      pilot
        ? `Pilot data: draft protocol ${f.protocolId}, not a standard result, not comparable or ranked`
        : "Headline numbers (medians, verified in this browser)",
    ),
    h(
      "div",
      { class: "headline-body" },
      plainTable(["Case @ concurrency", "Decode tok/s", "Prompt tok/s", "TTFT s", "Aggregate tok/s", "Capped"], rows, {
        id: "headline-cases",
      }),
      factList([
        ["Sanity", `${f.quality.passed}/12`],
        ["Status", statusBadges(f)],
        ["GPU", f.identity.gpu],
        ["Model / quant", `${f.identity.model} / ${f.identity.quant}`],
        ["Track", f.identity.track],
        ["Required stages", f.requiredDurationS === null ? "not measured" : `${num(f.requiredDurationS, 1)} s`],
      ]),
    ),
  );
}

/**
 * One result's page. `result`: its results.json as parsed here after its hash matched (null when it could not
 * be read again), for the facts the recomputation does not carry.
 * @param {SiteState} state @param {string} slug @param {Record<string, unknown> | null} result
 */
export function renderResult(state, slug, result) {
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
      replacement(state, entry),
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
    replacement(state, entry),
    h("p", {}, statusBadges(f), " ", verificationBadge(entry), ` protocol ${f.protocolId} (${f.stage})`),
    headline(f),
    h(
      "section",
      { class: "verdict verdict-ok", id: "verdict" },
      h("h2", {}, entry.checkedAt === null ? "Verified in this browser" : "Verified in this browser earlier"),
      entry.checkedAt === null ? null : h(
        "p",
        { class: "remembered" },
        `This browser checked this evidence at ${entry.checkedAt} and remembered the verdict; it was not checked again now.`,
      ),
      h("ul", {}, outcome.checks.map((c) => h("li", {}, c))),
    ),
    casesSection(f),
    roundsSection(f),
    sanitySection(f),
    failuresSection(f),
    recordSections(result),
    h("h2", {}, "Review"),
    reviewFacts(entry),
    reproductionsTable(state, entry),
    evidenceSection(state, outcome, f),
    runnerDrawings(state, f),
  );
}
