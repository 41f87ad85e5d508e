import assert from "node:assert/strict";
import { UsageError } from "../../../cli/_args.ts";
import { DEFAULT_URL, parseRunArgs } from "../../../cli/_run_args.ts";

Deno.test("run defaults to the loopback llama-server address, custom track and no optional stage", () => {
  const args = parseRunArgs([]);
  assert.equal(args.url, DEFAULT_URL);
  assert.equal(args.track, "custom");
  assert.equal(args.optionalConcurrency, false);
  assert.equal(args.trackNotes, null);
  assert.deepEqual(args.background, []);
  assert.equal(args.buildOptions, null);
});

Deno.test("run refuses every workload-changing flag, with or without a value", () => {
  for (const argv of [["--concurrency", "8"], ["--repeat=5"], ["--request-timeout", "60"], ["--concurrency"]]) {
    assert.throws(
      () => parseRunArgs(argv),
      (e: unknown) => e instanceof UsageError && /change the protocol's workload/.test(e.message),
    );
  }
});

Deno.test("run rejects unknown flags instead of ignoring them", () => {
  assert.throws(() => parseRunArgs(["--ur", "http://127.0.0.1:1"]), UsageError);
  assert.throws(() => parseRunArgs(["positional"]), UsageError);
});

Deno.test("run collects repeatable background and build options and validates track and engine commit", () => {
  const args = parseRunArgs([
    "--background",
    "browser",
    "--background=video call",
    "--build-options",
    "GGML_CUDA=ON",
    "--track",
    "default",
    "--engine-commit",
    "A".repeat(40),
    "--optional-concurrency",
  ]);
  assert.deepEqual(args.background, ["browser", "video call"]);
  assert.deepEqual(args.buildOptions, ["GGML_CUDA=ON"]);
  assert.equal(args.track, "default");
  assert.equal(args.engineCommit, "a".repeat(40));
  assert.equal(args.optionalConcurrency, true);
  assert.throws(() => parseRunArgs(["--track", "fast"]), /default or custom/);
  assert.throws(() => parseRunArgs(["--engine-commit", "80fb11a"]), /full 40-character/);
  assert.throws(() => parseRunArgs(["--track-notes", "  "]), /empty --track-notes/);
});

Deno.test("run rejects a malformed --url as a usage error with a hint, and accepts a well-formed one", () => {
  const cases: Array<[string, RegExp]> = [
    ["notaurl", /"notaurl": not a URL/],
    ["ftp://127.0.0.1:21", /only http and https are supported/],
    ["http://127.0.0.1:99999", /port 99999 is above 65535/],
  ];
  for (const [url, message] of cases) {
    assert.throws(
      () => parseRunArgs(["--url", url]),
      (e: unknown) =>
        e instanceof UsageError && message.test(e.message) && /--url http:\/\/127\.0\.0\.1/.test(e.message),
    );
  }
  assert.equal(parseRunArgs(["--url", "http://10.1.2.3:9"]).url, "http://10.1.2.3:9");
});

Deno.test("run refuses --url with --profile (the profile names the port) and --no-start without --profile", () => {
  assert.throws(
    () => parseRunArgs(["--profile", "tiny-qwen3", "--url", "http://127.0.0.1:8080"]),
    /--url with --profile/,
  );
  assert.throws(() => parseRunArgs(["--no-start"]), /--no-start: it has no effect without --profile/);
  assert.equal(parseRunArgs(["--profile", "tiny-qwen3", "--no-start"]).noStart, true);
});

Deno.test("run --engine-log FILE names the server's log; an empty value is refused; unset is null", () => {
  assert.equal(parseRunArgs(["--engine-log", "server.log"]).engineLog, "server.log");
  assert.equal(parseRunArgs([]).engineLog, null);
  assert.throws(() => parseRunArgs(["--engine-log", " "]), /empty --engine-log/);
});
