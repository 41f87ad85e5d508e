import assert from "node:assert/strict";
import { outFolderFlag, refuseInert, refuseSwitchValues, UsageError } from "../../../cli/_args.ts";

Deno.test("a switch that once took a file refuses a value with its new use, in both spellings", () => {
  const switches = { "--html": "write it into --out" };
  assert.throws(
    () => refuseSwitchValues("load", ["--html", "page.html"], switches),
    /--html takes no value now \(got "page.html"\): write it into --out/,
  );
  assert.throws(() => refuseSwitchValues("load", ["--html=page.html"], switches), UsageError);
  refuseSwitchValues("load", ["--html", "--out", "dir"], switches);
  refuseSwitchValues("load", ["--html"], switches);
  refuseSwitchValues("load", ["--", "--html", "x"], switches);
});

Deno.test("--out is a folder: a file name (the old spelling) is refused, the default used when absent", () => {
  assert.equal(outFolderFlag("load", {}, "bench-results"), "bench-results");
  assert.equal(outFolderFlag("load", { out: "results/today" }, "bench-results"), "results/today");
  for (const file of ["run.jsonl", "page.html", "merged.json", "x.svg"]) {
    assert.throws(() => outFolderFlag("load", { out: file }, "bench-results"), /--out names a folder now, not a file/);
  }
  assert.throws(() => outFolderFlag("load", { out: " " }, "bench-results"), /needs a folder/);
});

Deno.test("a flag with no effect in its combination is refused, saying why; one with an effect passes", () => {
  assert.throws(
    () => refuseInert("load", [["--strict", true, "with --ci-safety, which includes it"]]),
    /Cannot load: --strict has no effect with --ci-safety/,
  );
  refuseInert("load", [["--strict", true, null], ["--html", false, "with --plan"]]);
});
