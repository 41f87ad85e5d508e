#!/usr/bin/env node
// npm pack's prepack/postpack: a tarball carries no .git, so the checkout's commit goes into a COMMIT file inside
// it (the file a release carries; results then record runner_commit with build kind "release"), and is removed
// from the checkout again after packing.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_DIR } from "./_deno.mjs";

const file = join(PACKAGE_DIR, "COMMIT");
if (process.argv[2] === "write") {
  const commit = execFileSync("git", ["-C", PACKAGE_DIR, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  const dirty = execFileSync("git", ["-C", PACKAGE_DIR, "status", "--porcelain", "--untracked-files=no"], {
    encoding: "utf8",
  });
  if (dirty.trim() !== "") {
    process.stderr.write(
      "strata-bench: tracked files differ from the commit; the tarball claims a commit it does not match\n",
    );
  }
  writeFileSync(file, `${commit}\n`);
} else {
  rmSync(file, { force: true });
}
