#!/usr/bin/env bash
# Builds a release into dist/ (or $RELEASE_OUT) and checks it: the executables of every target (deno compile, with
# the "run" permission set baked in, where Deno's runtime base can be downloaded; bun build --compile for every
# target), COMMIT and SHA256SUMS, every sum checked again, and RELEASE_NOTES.md naming which executables keep the
# permission sandbox. The release workflow (.github/workflows/release.yml) runs it; so can a maintainer.
# RELEASE_TARGETS (default all) and RELEASE_WITH (default deno,bun) narrow it, as compile's --target and --with.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${RELEASE_OUT:-dist}"
mkdir -p "$out"
# The compile task's own permission set, with the write permission of this output folder.
./node_modules/.bin/deno run -q -P=compile --allow-write="$out" --no-prompt release/compile.ts \
  --target "${RELEASE_TARGETS:-all}" --with "${RELEASE_WITH:-deno,bun}" --out "$out"
(cd "$out" && sha256sum -c --quiet SHA256SUMS)
commit="$(cat "$out/COMMIT")"
{
  printf '# strata-bench %s\n\nBuilt from commit %s. Check a download with `sha256sum -c --ignore-missing SHA256SUMS`.\n\n' \
    "$(node -p 'require("./package.json").version')" "$commit"
  printf '| file | built by | permission sandbox |\n| --- | --- | --- |\n'
  for file in "$out"/strata-bench-*; do
    name="$(basename "$file")"
    case "$name" in
      *-bun|*-bun.exe) printf '| %s | bun build --compile | none: Bun has no permission system; it runs with your full rights |\n' "$name" ;;
      *) printf '| %s | deno compile | kept: the run permission set is baked in |\n' "$name" ;;
    esac
  done
} >"$out/RELEASE_NOTES.md"
echo "release: $(grep -c . "$out/SHA256SUMS") files in $out, every sum checked; notes in $out/RELEASE_NOTES.md"
