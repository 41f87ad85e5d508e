import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultProbeDeps, findAndHashModelFiles, hashFile, type ProbeDeps } from "../../../probe/mod.ts";
import { expandShards, packRelativeName } from "../../../probe/model_files.ts";
import type { HashProgress } from "../../../probe/hash_file.ts";

function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Real file access, counting how many files were opened for reading. */
function countingDeps(): ProbeDeps & { opened: string[] } {
  const base = defaultProbeDeps();
  const opened: string[] = [];
  return {
    ...base,
    opened,
    openReader: (path) => {
      opened.push(path);
      return base.openReader(path);
    },
  };
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "strata-model-"));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

Deno.test("hashFile matches SHA-256 of known inputs, across chunk boundaries and for an empty file", async () => {
  await withDir(async (dir) => {
    const deps = defaultProbeDeps();
    await writeFile(join(dir, "abc"), "abc");
    await writeFile(join(dir, "empty"), "");
    const bytes = new Uint8Array(1_000_003).map((_, i) => (i * 7919) % 251);
    await writeFile(join(dir, "odd"), bytes);
    const abc = await hashFile(join(dir, "abc"), deps);
    assert.deepEqual(abc, { ok: true, value: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" });
    const empty = await hashFile(join(dir, "empty"), deps);
    assert.deepEqual(empty, { ok: true, value: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" });
    for (const chunkBytes of [4096, 65536, 333_334, 999_999, 4 * 1024 * 1024]) {
      const odd = await hashFile(join(dir, "odd"), deps, { chunkBytes });
      assert.deepEqual(odd, { ok: true, value: sha256(bytes) }, `chunk ${chunkBytes}`);
    }
  });
});

Deno.test("hashFile reports progress with bytes, total, rate and ETA, and always a final report", async () => {
  await withDir(async (dir) => {
    await writeFile(join(dir, "f"), new Uint8Array(300_000));
    let clock = 0;
    const deps = { ...defaultProbeDeps(), nowMs: () => (clock += 100) };
    const seen: HashProgress[] = [];
    await hashFile(join(dir, "f"), deps, {
      sizeBytes: 300_000,
      chunkBytes: 100_000,
      onProgress: (p) => seen.push(p),
      progressIntervalMs: 0,
    });
    assert.deepEqual(seen.map((p) => p.bytesDone), [100_000, 200_000, 300_000, 300_000]);
    assert.deepEqual(seen.map((p) => p.done), [false, false, false, true]);
    const last = seen.at(-1)!;
    assert.equal(last.bytesTotal, 300_000);
    assert.equal(last.etaS, 0);
    assert.ok(last.rateBytesPerS !== null && last.rateBytesPerS > 0);
  });
});

Deno.test("split GGUF names expand to every shard; other names stay single", () => {
  assert.deepEqual(expandShards("/m/Qwen3-30B-Q4_K_M-00002-of-00003.gguf"), [
    "/m/Qwen3-30B-Q4_K_M-00001-of-00003.gguf",
    "/m/Qwen3-30B-Q4_K_M-00002-of-00003.gguf",
    "/m/Qwen3-30B-Q4_K_M-00003-of-00003.gguf",
  ]);
  assert.deepEqual(expandShards("/m/model.gguf"), ["/m/model.gguf"]);
  assert.deepEqual(expandShards("model-1-of-2.gguf"), ["model-1-of-2.gguf"]);
});

Deno.test("published names are pack-relative inside the pack folder, else the base name; never a machine path", () => {
  assert.equal(packRelativeName("/data/packs/flash/iq3/model.gguf", "/data/packs/flash"), "iq3/model.gguf");
  assert.equal(packRelativeName("/data/packs/flash/model.gguf", "/data/packs/flash/"), "model.gguf");
  assert.equal(packRelativeName("/elsewhere/model.gguf", "/data/packs/flash"), "model.gguf");
  assert.equal(packRelativeName("C:\\Models\\pack\\m.gguf", "C:\\Models\\pack"), "m.gguf");
  assert.equal(packRelativeName("/data/packs/flashy/m.gguf", "/data/packs/flash"), "m.gguf");
});

Deno.test("every shard of the server's model is hashed, engine-arg duplicates are dropped, names are relative", async () => {
  await withDir(async (dir) => {
    const pack = join(dir, "pack");
    await mkdir(join(pack, "q4"), { recursive: true });
    const shards = ["m-00001-of-00002.gguf", "m-00002-of-00002.gguf"].map((n) => join(pack, "q4", n));
    await writeFile(shards[0]!, "GGUF shard one");
    await writeFile(shards[1]!, "GGUF shard two");
    const deps = countingDeps();
    const result = await findAndHashModelFiles({
      modelPath: shards[0]!,
      engineArgFiles: [shards[1]!],
      packDir: pack,
      cacheDir: null,
    }, deps);
    assert.deepEqual(result.files, [
      { path: "q4/m-00001-of-00002.gguf", sha256: sha256("GGUF shard one") },
      { path: "q4/m-00002-of-00002.gguf", sha256: sha256("GGUF shard two") },
    ]);
    assert.deepEqual(result.nonconformingReasons, []);
    assert.equal(result.hashedBytes, 28);
    assert.equal(deps.opened.length, 4, "each file is opened for its magic bytes, then to hash it");
  });
});

Deno.test("a missing shard keeps its entry with a null hash, a pointer reason and a nonconforming reason", async () => {
  await withDir(async (dir) => {
    const first = join(dir, "big-00001-of-00002.gguf");
    await writeFile(first, "GGUF only the first");
    const result = await findAndHashModelFiles({ modelPath: first, cacheDir: null }, defaultProbeDeps());
    assert.equal(result.files?.length, 2);
    assert.equal(result.files?.[1]?.sha256, null);
    assert.equal(result.files?.[1]?.path, "big-00002-of-00002.gguf");
    const reason = result.missing["/model/files/1/sha256"] ?? "";
    assert.match(reason, /cannot hash model file big-00002-of-00002\.gguf/);
    assert.ok(!reason.includes(dir), "the reason names no machine path");
    assert.equal(result.nonconformingReasons.length, 1);
  });
});

Deno.test("no model file known at all: files null, a reason, and a nonconforming reason", async () => {
  const result = await findAndHashModelFiles({ modelPath: null, cacheDir: null }, defaultProbeDeps());
  assert.equal(result.files, null);
  assert.ok(result.missing["/model/files"]);
  assert.equal(result.nonconformingReasons.length, 1);
});

Deno.test("the hash cache serves an unchanged file without opening it; a touched file or --rehash hashes again", async () => {
  await withDir(async (dir) => {
    const model = join(dir, "model.gguf");
    const cacheDir = join(dir, "cache");
    await writeFile(model, "GGUF weights v1");
    const first = countingDeps();
    const one = await findAndHashModelFiles({ modelPath: model, cacheDir }, first);
    assert.equal(one.details[0]?.fromCache, false);
    assert.equal(first.opened.length, 2);
    const cacheFile = JSON.parse(await readFile(join(cacheDir, "hashes.json"), "utf8"));
    assert.equal(cacheFile.format, "strata-bench-hash-cache");

    const second = countingDeps();
    const two = await findAndHashModelFiles({ modelPath: model, cacheDir }, second);
    assert.equal(two.details[0]?.fromCache, true);
    assert.equal(two.files?.[0]?.sha256, sha256("GGUF weights v1"));
    assert.equal(second.opened.length, 0, "a cache hit does not read the file");
    assert.equal(two.hashedBytes, 0);

    const third = countingDeps();
    const three = await findAndHashModelFiles({ modelPath: model, cacheDir, rehash: true }, third);
    assert.equal(three.details[0]?.fromCache, false);
    assert.equal(third.opened.length, 2);

    await writeFile(model, "GGUF weights v2");
    await utimes(model, new Date(), new Date(Date.now() + 5000));
    const fourth = countingDeps();
    const four = await findAndHashModelFiles({ modelPath: model, cacheDir }, fourth);
    assert.equal(four.details[0]?.fromCache, false);
    assert.equal(four.files?.[0]?.sha256, sha256("GGUF weights v2"));
  });
});

Deno.test("a corrupt cache file is treated as empty, and an unwritable cache is a note, not a failure", async () => {
  await withDir(async (dir) => {
    const model = join(dir, "model.gguf");
    await writeFile(model, "GGUFw");
    await mkdir(join(dir, "cache"));
    await writeFile(join(dir, "cache", "hashes.json"), "{not json");
    const deps = {
      ...defaultProbeDeps(),
      writeText: () =>
        Promise.resolve({
          ok: false as const,
          kind: "permission" as const,
          reason: "permission to write refused (add --allow-write)",
        }),
    };
    const result = await findAndHashModelFiles({ modelPath: model, cacheDir: join(dir, "cache") }, deps);
    assert.equal(result.files?.[0]?.sha256, sha256("GGUFw"));
    assert.match(result.cacheProblem ?? "", /not saved: permission to write refused/);
  });
});

Deno.test("a file that is not GGUF is neither hashed nor named, whatever the server calls it", async () => {
  await withDir(async (dir) => {
    const secret = join(dir, "private-notes.txt");
    await writeFile(secret, "root:x:0:0:root:/root:/bin/bash\n");
    const model = join(dir, "m.gguf");
    await writeFile(model, "GGUF real");
    const deps = countingDeps();
    const result = await findAndHashModelFiles({ modelPath: secret, engineArgFiles: [model], cacheDir: null }, deps);
    assert.deepEqual(result.files, [{ path: "m.gguf", sha256: sha256("GGUF real") }]);
    assert.ok(!JSON.stringify(result).includes("private-notes"), "the non-GGUF file is not named");
    assert.match(result.nonconformingReasons.join(" "), /1 file\(s\) .* are not GGUF files/);
    assert.equal(result.hashedBytes, 9);
    const only = await findAndHashModelFiles({ modelPath: secret, cacheDir: null }, countingDeps());
    assert.equal(only.files, null);
    assert.match(only.missing["/model/files"]!, /no GGUF model file found/);
  });
});

Deno.test("an aborted signal stops hashing: the file keeps a null hash with the cancel reason", async () => {
  await withDir(async (dir) => {
    const model = join(dir, "m.gguf");
    const bytes = new Uint8Array(40 * 1024 * 1024).fill(71); // three 16 MiB chunks
    bytes.set(new TextEncoder().encode("GGUF"));
    await writeFile(model, bytes);
    const controller = new AbortController();
    let chunks = 0;
    const result = await findAndHashModelFiles({
      modelPath: model,
      cacheDir: null,
      signal: controller.signal,
      onProgress: () => {
        chunks++;
        controller.abort("SIGINT");
      },
    }, countingDeps());
    assert.equal(result.files?.[0]?.sha256, null);
    assert.match(result.missing["/model/files/0/sha256"]!, /hashing was cancelled \(SIGINT\)/);
    assert.ok(chunks <= 1, `${chunks} progress reports after the abort`);
  });
});
