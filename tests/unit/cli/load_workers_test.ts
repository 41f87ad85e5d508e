import assert from "node:assert/strict";
import { workerArgv } from "../../../cli/_load_workers.ts";

Deno.test("a worker gets the person's load arguments without --workers, --out and --worker-of, in either spelling", () => {
  assert.deepEqual(
    workerArgv(["--url", "http://127.0.0.1:1", "--workers", "4", "--out", "dir", "--concurrency", "8"]),
    ["--url", "http://127.0.0.1:1", "--concurrency", "8"],
  );
  assert.deepEqual(workerArgv(["--workers=4", "--out=dir", "--rate", "10", "--worker-of", "1"]), ["--rate", "10"]);
  // A value that looks like the flag is the earlier flag's value, and stays.
  assert.deepEqual(workerArgv(["--host-label", "--out-host", "--workers", "2"]), ["--host-label", "--out-host"]);
});
