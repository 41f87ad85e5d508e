/**
 * The files of a new results repository (`approved init`): the empty approved manifest, the submitter's and the
 * security guide, and two GitHub Actions workflows whose steps are scripts the tests run here. The review workflow
 * runs on every pull request from the default branch's definition (pull_request_target): it checks the pull
 * request out as data only, installs the pinned toolkit, and runs every judge on each result folder the pull
 * request adds or changes; nothing from the pull request is executed. The site workflow builds and publishes the
 * website when the manifest changes on the default branch.
 */
import { manifestText } from "./web/manifest.js";

/** One file of the kit, repository-relative. */
export interface KitFile {
  path: string;
  text: string;
}

/** Where a kit's workflows get the toolkit: an npm install spec, pinned ("strata-bench@0.1.0", a tarball URL). */
export interface KitOptions {
  toolkit: string;
}

const REVIEW_SCRIPT = `#!/usr/bin/env bash
# The review of one pull request by every judge of the pinned toolkit. Usage: review-pr.sh BASE_COMMIT PR_CHECKOUT.
# STRATA_BENCH_BIN is the pinned toolkit's command; the verdicts are appended to GITHUB_STEP_SUMMARY when it is set.
# A results pull request changes files under bench/results/<folder>/ only: each folder it adds or changes is checked by
# \`approved check\`. A maintainer's approval changes bench/approved.json only: \`approved verify\` checks it. Nothing
# of the pull request is run; the toolkit reads it from outside the checkout. Exit 0: accepted; 1: refused.
set -euo pipefail
base="$1"
pr="$(cd "$2" && pwd)"
bin="\${STRATA_BENCH_BIN:?STRATA_BENCH_BIN names the strata-bench command of the pinned toolkit}"
summary="\${GITHUB_STEP_SUMMARY:-}"
if [ -n "$summary" ]; then summary="$(cd "$(dirname "$summary")" && pwd)/$(basename "$summary")"; fi
say() { if [ -n "$summary" ]; then printf "$@" >>"$summary"; fi; }
changed="$(git -C "$pr" -c core.quotePath=false diff --name-only --no-renames "$base"...HEAD)"
results="$(printf '%s\\n' "$changed" | grep -e '^bench/results/[^/][^/]*/..*$' || true)"
manifest="$(printf '%s\\n' "$changed" | grep -x -e 'bench/approved.json' || true)"
outside="$(printf '%s\\n' "$changed" | grep -v -e '^bench/results/[^/][^/]*/..*$' -e '^bench/approved.json$' -e '^$' || true)"
if [ -n "$outside" ] || { [ -n "$results" ] && [ -n "$manifest" ]; }; then
  say '## Refused\\n\\nA results pull request changes files of bench/results/<folder>/ only, and an approval only bench/approved.json; this one changes:\\n\\n'
  printf '%s\\n' "$changed" | grep -v -e '^$' | sed 's/^/- /' | while IFS= read -r line; do say '%s\\n' "$line"; done
  echo "refused: the pull request mixes result folders, the manifest or other files" >&2
  exit 1
fi
if [ -n "$manifest" ]; then
  if "$bin" approved verify --repo "$pr"; then
    say '## The approved manifest\\n\\napproved verify accepts every entry of bench/approved.json.\\n'
    exit 0
  fi
  say '## Refused: the approved manifest\\n\\napproved verify names the problems in the job log.\\n'
  exit 1
fi
if [ -z "$results" ]; then
  say '## Nothing to review\\n\\nThe pull request changes no result folder.\\n'
  exit 0
fi
status=0
while IFS= read -r folder; do
  if [ ! -d "$pr/$folder" ]; then
    say '## Refused: %s\\n\\nThe pull request removes or empties it; a withdrawal is a maintainer change of bench/approved.json.\\n' "$folder"
    status=1
    continue
  fi
  if [ -n "$summary" ]; then
    "$bin" approved check "$pr/$folder" --summary "$summary" || status=1
  else
    "$bin" approved check "$pr/$folder" || status=1
  fi
done < <(printf '%s\\n' "$results" | cut -d/ -f1-3 | sort -u)
exit "$status"
`;

const SITE_SCRIPT = `#!/usr/bin/env bash
# Builds the website of the approved results into site-dist/ with the pinned toolkit (STRATA_BENCH_BIN).
set -euo pipefail
bin="\${STRATA_BENCH_BIN:?STRATA_BENCH_BIN names the strata-bench command of the pinned toolkit}"
"$bin" approved verify
"$bin" site build --repo . --out site-dist
`;

/**
 * Every action the workflows use, pinned by commit (a tag can be moved to other code; a commit cannot), with the
 * release it is, for the person who updates them. Dependabot or a maintainer updates both together.
 */
const ACTIONS = {
  checkout: "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2",
  setupNode: "actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020 # v4.4.0",
  uploadPages: "actions/upload-pages-artifact@56afc609e74202658d3ffba0e8f6dda462b719fa # v3.0.1",
  deployPages: "actions/deploy-pages@d6db90164ac5ed86f2b6aed7e0febac5b3c0c03e # v4.0.5",
} as const;

/** The steps both workflows start with after their checkout: Node, and the pinned toolkit in the runner's temp. */
function toolkitSteps(toolkit: string): string {
  return `      - uses: ${ACTIONS.setupNode}
        with:
          node-version: 20
      - name: The pinned toolkit
        run: npm install --global --no-audit --no-fund --prefix "$RUNNER_TEMP/toolkit" "$TOOLKIT"
        env:
          TOOLKIT: ${JSON.stringify(toolkit)}
`;
}

function reviewWorkflow(toolkit: string): string {
  return `# The review of every pull request: each result folder it adds or changes, by every judge of the pinned
# toolkit. The definition and the scripts come from the default branch (pull_request_target); the pull request is
# checked out as data and nothing in it is run. Approval stays a maintainer's change of bench/approved.json.
name: review
on:
  pull_request_target:
    types: [opened, synchronize, reopened]
permissions:
  contents: read
jobs:
  review:
    runs-on: ubuntu-latest
    steps:
      - name: The default branch (its scripts are what runs)
        uses: ${ACTIONS.checkout}
        with:
          path: base
          persist-credentials: false
      - name: The pull request, as data
        uses: ${ACTIONS.checkout}
        with:
          ref: \${{ github.event.pull_request.head.sha }}
          path: pr
          fetch-depth: 0
          persist-credentials: false
${toolkitSteps(toolkit)}      - name: Every judge on every result folder of the pull request
        run: bash base/.github/scripts/review-pr.sh "$BASE_SHA" pr
        env:
          BASE_SHA: \${{ github.event.pull_request.base.sha }}
          STRATA_BENCH_BIN: \${{ runner.temp }}/toolkit/bin/strata-bench
`;
}

function siteWorkflow(toolkit: string): string {
  return `# The website of the approved results, built with the pinned toolkit and published to GitHub Pages whenever the
# approved manifest changes on the default branch.
name: site
on:
  push:
    branches: [main]
    paths: [bench/approved.json]
  workflow_dispatch:
permissions:
  contents: read
concurrency:
  group: pages
  cancel-in-progress: false
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: ${ACTIONS.checkout}
        with:
          fetch-depth: 0
          persist-credentials: false
${toolkitSteps(toolkit)}      - name: Verify the manifest and build the site
        run: bash .github/scripts/build-site.sh
        env:
          STRATA_BENCH_BIN: \${{ runner.temp }}/toolkit/bin/strata-bench
      - uses: ${ACTIONS.uploadPages}
        with:
          path: site-dist
  deploy:
    needs: build
    runs-on: ubuntu-latest
    # Only the deploy step, which runs no code of the toolkit, may publish.
    permissions:
      pages: write
      id-token: write
    environment:
      name: github-pages
      url: \${{ steps.deployment.outputs.page_url }}
    steps:
      - id: deployment
        uses: ${ACTIONS.deployPages}
`;
}

const CONTRIBUTING = `# Submitting a result

This repository holds benchmark results measured with strata-bench, one folder each under \`bench/results/\`, and
\`bench/approved.json\`, the list of results its maintainers reviewed. The website shows approved results only.

1. Run the protocol against your own server: \`strata-bench run --url http://127.0.0.1:8080 --model-id ORG/REPO
   --quantization Q4_K_M ...\`. Keep every scheduled outcome; do not pick the best run.
2. Inspect: \`strata-bench report bench-results/<folder>\`, then read the folder itself. Remove by hand what must not
   be published (a path, a host name) and seal it: \`strata-bench report bench-results/<folder> --seal\`, which
   refuses an edit that changed anything measured.
3. Submit: fork this repository and clone your fork, then, from the folder you ran in (not inside the clone),
   \`strata-bench submit bench-results/<folder> --repo <clone>\`. It commits the folder on a new branch with the pull
   request's title and body; push the branch to your fork and open the pull request with the lines it prints. One
   result folder per pull request, and nothing outside \`bench/results/<folder>/\`.
4. The review workflow runs every judge of the pinned toolkit on your folder and writes its verdict to the job
   summary. A maintainer reads the folder and the verdict, then approves by adding the entry to
   \`bench/approved.json\` (\`strata-bench approved add\`) in a change of their own.

A secret found in a result's evidence is never reported in a pull request or an issue: see SECURITY.md.
`;

const SECURITY = `# Security

## Reporting

If you find a secret (a token, a key, a private path or host name) in a result folder of this repository, or a way
to make the website show a result that was not approved, report it privately to the maintainers (the repository
host's private vulnerability reporting), never in an issue or a pull request. Say which folder and file, and the
line.

## What maintainers do with a secret in published evidence

1. Withdraw the folder's entry (\`strata-bench approved withdraw RUN_ID --reason TEXT --review-pr URL\`) and remove
   the folder from the default branch, so the website stops serving it.
2. Rewrite the history that holds the file (for example with git filter-repo), force-push, and ask the host to drop
   cached views and pull request refs that still hold it. Treat the secret as leaked: the submitter revokes it. The
   rewrite gives every later commit a new id: record each later entry again (\`approved add ... --replace\` with
   \`--evidence-commit\`); \`strata-bench approved verify\` names every entry whose commit is gone.
3. A withdrawn run id is never approved again: the submitter measures again and submits the new run.
`;

const RESULTS_README = `# Result folders

One folder per run, as \`strata-bench run\` wrote it (sealed with \`report --seal\` after a hand redaction), added
by \`strata-bench submit\` in a pull request of its own.
`;

/** The kit's files, in the order they are written. */
export function resultsRepositoryKit(options: KitOptions): KitFile[] {
  return [
    { path: "bench/approved.json", text: manifestText([]) },
    { path: "bench/results/README.md", text: RESULTS_README },
    { path: ".gitignore", text: "site-dist/\n" },
    { path: "CONTRIBUTING.md", text: CONTRIBUTING },
    { path: "SECURITY.md", text: SECURITY },
    { path: ".github/workflows/review.yml", text: reviewWorkflow(options.toolkit) },
    { path: ".github/workflows/site.yml", text: siteWorkflow(options.toolkit) },
    { path: ".github/scripts/review-pr.sh", text: REVIEW_SCRIPT },
    { path: ".github/scripts/build-site.sh", text: SITE_SCRIPT },
  ];
}
