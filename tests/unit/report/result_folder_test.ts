import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  chooseResultsRoot,
  gpuSlug,
  newRunId,
  openResultFolder,
  resultFolderName,
} from "../../../report/result_folder.ts";
import { type ResultFiles, resultFiles } from "../../../runtime/mod.ts";

const plain = { text: (t: string) => t, json: (v: unknown) => v };

function inFolder(cwd: string): ResultFiles {
  return { ...resultFiles, cwd: () => cwd };
}

Deno.test("the folder name carries the UTC date, the first GPU's slug and the run id", () => {
  const id = newRunId(new Date("2026-03-04T05:06:07.890Z"), () => 0.5);
  assert.equal(id, "20260304T050607Z-iiiiii");
  assert.equal(resultFolderName("2026-03-04T05:06:07.890Z", "rtx-3060", id), `2026-03-04-standard-rtx-3060-${id}`);
  assert.equal(gpuSlug(["NVIDIA GeForce RTX 3060", "NVIDIA RTX A4000"]), "rtx-3060");
  assert.equal(gpuSlug(["AMD Radeon RX 7900 XTX"]), "radeon-rx-7900-xtx");
  assert.equal(gpuSlug([]), "nogpu");
  assert.equal(gpuSlug(null), "unknown-gpu");
  assert.equal(gpuSlug(["???"]), "unknown-gpu");
  assert.throws(() => resultFolderName("yesterday", "x", id), RangeError);
  assert.throws(() => resultFolderName("2026-03-04T05:06:07Z", "x", "../up"), RangeError);
});

Deno.test("results go to bench/results when the current folder has it, else to ./bench-results", async () => {
  const cwd = await Deno.makeTempDir();
  try {
    assert.equal(await chooseResultsRoot(inFolder(cwd)), join(cwd, "bench-results"));
    await Deno.mkdir(join(cwd, "bench", "results"), { recursive: true });
    assert.equal(await chooseResultsRoot(inFolder(cwd)), join(cwd, "bench", "results"));
    assert.equal(await chooseResultsRoot(inFolder(cwd), "elsewhere"), "elsewhere");
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("outputs are appended per line, artifacts hash their final sanitized bytes, results.json is written whole", async () => {
  const cwd = await Deno.makeTempDir();
  try {
    const sanitize = {
      text: (t: string) => t.replaceAll("secret", "<redacted>"),
      json: (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll("secret", "<redacted>")),
    };
    const folder = await openResultFolder(resultFiles, cwd, "run-a", sanitize);
    await folder.appendSanitizedOutput({ request_id: "warmup" });
    await folder.appendSanitizedOutput({ request_id: "performance-short-r1" });
    const outputsText = await Deno.readTextFile(join(cwd, "run-a", "outputs.jsonl"));
    assert.equal(outputsText.split("\n").length, 3);
    const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
    assert.equal(folder.outputsArtifact().sha256, sha(await Deno.readFile(join(cwd, "run-a", "outputs.jsonl"))));
    const config = await folder.writeArtifact("config", "config.json", '{"key":"secret"}');
    assert.equal(config.sha256, sha(await Deno.readFile(join(cwd, "run-a", "config.json"))));
    assert.equal(await Deno.readTextFile(join(cwd, "run-a", "config.json")), '{"key":"<redacted>"}');
    await folder.writeResults("{}\n");
    const names = [];
    for await (const entry of Deno.readDir(join(cwd, "run-a"))) names.push(entry.name);
    assert.deepEqual(names.sort(), ["config.json", "outputs.jsonl", "results.json"]);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("a folder that cannot be created is reported with a hint", async () => {
  const failing: ResultFiles = {
    ...resultFiles,
    makeDirectory: () => Promise.reject(new Error("read-only file system")),
  };
  await assert.rejects(openResultFolder(failing, "root", "x", plain), /Cannot create the result folder.*--out DIR/);
});

function refusal(message: string): Error {
  const error = new Error(message);
  error.name = "NotCapable";
  return error;
}

Deno.test("a refused write under /proc says to choose another folder instead of suggesting --allow-all", async () => {
  const failing: ResultFiles = {
    ...resultFiles,
    makeDirectory: () =>
      Promise.reject(refusal('Requires all access to "/proc/nope/x", run again with the --allow-all flag')),
  };
  await assert.rejects(openResultFolder(failing, "/proc/nope", "x", plain), (error: unknown) => {
    const message = error instanceof Error ? error.message : "";
    assert.doesNotMatch(message, /run again with the --allow-all flag/);
    assert.match(message, /^Cannot create the result folder "\/proc\/nope\/x": permission to write there refused/);
    assert.match(message, /choose another folder.*--out DIR/);
    return true;
  });
});

Deno.test("a refused write elsewhere names --allow-write", async () => {
  const failing: ResultFiles = {
    ...resultFiles,
    makeDirectory: () =>
      Promise.reject(refusal('Requires write access to "/srv/out/x", run again with the --allow-write flag')),
  };
  await assert.rejects(openResultFolder(failing, "/srv/out", "x", plain), /refused \(add --allow-write\).*--out DIR/);
});
