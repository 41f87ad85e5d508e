import assert from "node:assert/strict";
import { pinnedToolkit } from "../../../cli/_approved_kit.ts";

Deno.test("approved init's --toolkit must pin one build: a tarball, a git commit or an exact version", () => {
  for (
    const spec of [
      "https://example.org/strata-bench-0.1.0.tgz",
      "./strata-bench-0.1.0.tgz",
      `git+https://github.com/owner/strata-bench.git#${"a".repeat(40)}`,
      "strata-bench@0.1.0",
      "@scope/strata-bench@1.2.3",
    ]
  ) {
    assert.equal(pinnedToolkit(spec, "0.1.0"), spec);
  }
  for (const spec of ["strata-bench", "strata-bench@^0.1.0", "strata-bench@latest", "github:owner/strata-bench#main"]) {
    assert.throws(() => pinnedToolkit(spec, "0.1.0"), /pins no single build/, spec);
  }
  assert.throws(() => pinnedToolkit(undefined, "0.1.0"), /approved init needs --toolkit SPEC.*not on the npm registry/);
});
