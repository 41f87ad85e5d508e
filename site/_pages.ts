/**
 * The static HTML shells of the site. They carry no result data: the page's script verifies the evidence in the
 * reader's browser and only then fills the page. A Content-Security-Policy in each page lets scripts, styles and
 * data come only from the site itself (pictures also from verified in-memory bytes), which holds on any static
 * host, GitHub Pages included, where no response header can be set.
 */

/** The browser files copied from site/web/ into the site's assets/ folder, byte for byte. */
export const WEB_FILES = [
  "app.js",
  "app_dom.js",
  "app_state.js",
  "check_config.js",
  "check_derived.js",
  "check_records.js",
  "check_folder.js",
  "check_measured.js",
  "check_plausible.js",
  "check_result.js",
  "check_status.js",
  "evidence.js",
  "facts.js",
  "favicon.svg",
  "light_evidence.js",
  "manifest.js",
  "mod.js",
  "page_common.js",
  "page_index.js",
  "page_record.js",
  "page_reproductions.js",
  "page_result.js",
  "protocol.js",
  "remembered.js",
  "reproduction_delta.js",
  "sanity.js",
  "sha256.js",
  "stated.js",
  "stated_possible.js",
  "strict_json.js",
  "style.css",
  "verify_entry.js",
  "verify_worker.js",
  "visible.js",
] as const;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const SIMULATED_BANNER = `<p class="simulated-site">SIMULATED: a throwaway site built from the scripted engine's demo
result (no GPU, no model). Every number on it is simulated; it is no approved result and can never be approved.</p>
`;

function shell(title: string, root: string, attributes: Record<string, string>, simulated: boolean): string {
  const data = Object.entries(attributes).map(([k, v]) => ` data-${k}="${escapeHtml(v)}"`).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<title>${simulated ? "SIMULATED: " : ""}${escapeHtml(title)}</title>
<link rel="icon" href="${root}assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${root}assets/style.css">
<script type="module" src="${root}assets/app.js"></script>
</head>
<body data-root="${root}"${data}>
<header class="site"><a href="${root}index.html">strata-bench approved results</a></header>
${simulated ? SIMULATED_BANNER : ""}<main id="main">
<p class="pending" id="pending">Verifying the evidence in your browser&hellip;</p>
<noscript><p class="problem">This site checks every hash and recomputes every score in your browser before it
shows a number. That needs JavaScript; without it nothing is shown.</p></noscript>
</main>
</body>
</html>
`;
}

/** The index page: the list of approved results, filled after verification; `simulated` for a demo site. */
export function indexPage(simulated = false): string {
  return shell("Approved standard benchmark results", "", { page: "index" }, simulated);
}

/** The page of one manifest entry (`slug` from its run id), at r/<slug>/index.html. */
export function resultPage(slug: string, runId: string, simulated = false): string {
  return shell(`Result ${runId}`, "../../", { page: "result", entry: slug }, simulated);
}

/**
 * A folder name for a run id, unique among `taken`: letters, digits, dot, dash and underscore kept, the rest as
 * dashes; a name already taken gets the entry's index, and a counter while that is taken too. Names are compared
 * without case, since a case-insensitive disk (macOS, Windows) would make "A" and "a" one folder.
 */
export function slugFor(runId: string | null, index: number, taken: Set<string>): string {
  let base = (runId ?? "").replace(/[^A-Za-z0-9._-]/g, "-").replace(/^[.-]+/, "").slice(0, 120);
  if (base === "") base = `entry-${index}`;
  let slug = base;
  for (let n = 1; taken.has(slug.toLowerCase()); n++) slug = n === 1 ? `${base}-${index}` : `${base}-${index}-${n}`;
  taken.add(slug.toLowerCase());
  return slug;
}
