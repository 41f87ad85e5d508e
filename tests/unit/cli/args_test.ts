import assert from "node:assert/strict";
import {
  didYouMean,
  outFolderFlag,
  parseFlags,
  refuseInert,
  refuseSwitchValues,
  UsageError,
} from "../../../cli/_args.ts";

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

Deno.test("a mistyped flag or command gets the nearest known one; a word far from all gets none", () => {
  assert.equal(didYouMean("ulr", ["url", "profile", "out"]), "url");
  assert.equal(didYouMean("concurency", ["concurrency", "requests"]), "concurrency");
  assert.equal(didYouMean("rnu", ["run", "report", "demo"]), "run");
  assert.equal(didYouMean("lod", ["load", "mock"]), "load");
  assert.equal(didYouMean("xyzzy", ["run", "report", "demo"]), null);
  assert.throws(
    () => parseFlags("load", ["--concurency", "4"], { concurrency: { type: "string" } }),
    /^UsageError: Cannot load: unknown flag --concurency; did you mean --concurrency\? \(--help lists the flags\)$/,
  );
});

Deno.test("no raw parser message reaches a person: missing, ambiguous and unwanted values, stray words", () => {
  const options = { plan: { type: "string" }, html: { type: "boolean" } } as const;
  const said = (argv: string[]) => {
    try {
      parseFlags("compare", argv, options);
    } catch (error) {
      assert.ok(error instanceof UsageError);
      return error.message;
    }
    assert.fail("accepted");
  };
  assert.equal(
    said(["--plan"]),
    "Cannot compare: --plan needs a value: write --plan VALUE (--help says what it takes)",
  );
  assert.match(said(["--plan", "--html"]), /--plan needs a value \(the next word is another flag\)/);
  assert.equal(said(["--html=yes"]), "Cannot compare: --html takes no value");
  assert.match(said(["spec.jsonc"]), /unexpected word "spec\.jsonc": this command takes flags only/);
  for (const argv of [["--plan"], ["--plan", "--html"], ["--html=1"], ["x"], ["--nope"]]) {
    assert.doesNotMatch(said(argv), /ambiguous|Option '|positional|To specify/);
  }
});
