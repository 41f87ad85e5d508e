import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultProbeDeps, findAndHashModelFiles, type ModelHashProgress, type ProbeDeps } from "../../../probe/mod.ts";
import type { HashWorkerPort } from "../../../probe/_hash_pool.ts";
import { refusalFrom } from "../../../runtime/mod.ts";

const SHARDS = 4;

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

const GGUF = new TextEncoder().encode("GGUF");

/** Four shards of different sizes (one spans several 16 MiB chunks) with distinct contents. */
async function withShards(fn: (dir: string, contents: Uint8Array[]) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "strata-shards-"));
  try {
    const contents: Uint8Array[] = [];
    for (let i = 0; i < SHARDS; i++) {
      const size = [40 * 1024 * 1024 + 7, 1_000_003, 5, 17 * 1024 * 1024][i]!;
      const bytes = new Uint8Array(size).map((_, k) => (k * 31 + i * 101) % 251);
      bytes.set(GGUF.subarray(0, Math.min(4, size))); // a model file starts with the GGUF magic
      contents.push(bytes);
      await writeFile(join(dir, `m-0000${i + 1}-of-0000${SHARDS}.gguf`), bytes);
    }
    await fn(dir, contents);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function counting(deps: ProbeDeps): ProbeDeps & { workers: number } {
  const counted = { ...deps, workers: 0 };
  const start = deps.startHashWorker!;
  counted.startHashWorker = () => (counted.workers++, start());
  return counted;
}

Deno.test("4 shards hashed on workers give the sequential hashes and node:crypto's, in file order", async () => {
  await withShards(async (dir, contents) => {
    const modelPath = join(dir, "m-00001-of-00004.gguf");
    const deps = counting(defaultProbeDeps());
    const parallel = await findAndHashModelFiles(
      { modelPath, cacheDir: null, maxParallel: 4, parallelMinBytes: 0 },
      deps,
    );
    const sequential = await findAndHashModelFiles({ modelPath, cacheDir: null, maxParallel: 1 }, deps);
    assert.equal(deps.workers, 4, "one worker per shard");
    assert.equal(parallel.parallelProblem, null);
    assert.equal(parallel.hashWorkers, 4);
    assert.equal(parallel.parallelProblem, null);
    assert.equal(sequential.hashWorkers, 0);
    const expected = contents.map((bytes, i) => ({ path: `m-0000${i + 1}-of-00004.gguf`, sha256: sha256(bytes) }));
    assert.deepEqual(parallel.files, expected);
    assert.deepEqual(sequential.files, expected);
    assert.equal(parallel.hashedBytes, contents.reduce((sum, c) => sum + c.length, 0));
  });
});

Deno.test("parallel progress sums every shard: the last overall report has all bytes and all files done", async () => {
  await withShards(async (dir, contents) => {
    const seen: ModelHashProgress[] = [];
    await findAndHashModelFiles({
      modelPath: join(dir, "m-00001-of-00004.gguf"),
      cacheDir: null,
      maxParallel: 4,
      parallelMinBytes: 0,
      onProgress: (p) => seen.push(p),
    }, defaultProbeDeps());
    const total = contents.reduce((sum, c) => sum + c.length, 0);
    const last = seen.at(-1)!;
    assert.deepEqual(
      { ...last.overall, rateBytesPerS: null, etaS: null },
      { bytesDone: total, bytesTotal: total, rateBytesPerS: null, etaS: null, filesDone: 4, filesTotal: 4 },
    );
    assert.equal(last.overall.etaS, 0);
    const finals = seen.filter((p) => p.done);
    assert.deepEqual(finals.map((p) => p.fileIndex).sort(), [0, 1, 2, 3]);
    for (const p of finals) assert.equal(p.bytesDone, contents[p.fileIndex]!.length);
    const overallDone = seen.map((p) => p.overall.bytesDone);
    assert.ok(overallDone.every((b, i) => i === 0 || b >= overallDone[i - 1]!), "overall bytes never go back");
  });
});

Deno.test("an unreadable shard gets a null hash and a reason while the others hash on workers", async () => {
  await withShards(async (dir, contents) => {
    const base = defaultProbeDeps();
    const blocked = join(dir, "m-00003-of-00004.gguf");
    const deps: ProbeDeps = {
      ...base,
      openReader: (path) =>
        path === blocked
          ? Promise.resolve({
            ok: false,
            kind: "permission",
            reason: `permission to open ${path} refused (add --allow-read)`,
          })
          : base.openReader(path),
    };
    const result = await findAndHashModelFiles(
      { modelPath: join(dir, "m-00001-of-00004.gguf"), cacheDir: null, maxParallel: 4, parallelMinBytes: 0 },
      deps,
    );
    assert.deepEqual(result.files?.map((f) => f.sha256), [
      sha256(contents[0]!),
      sha256(contents[1]!),
      null,
      sha256(contents[3]!),
    ]);
    assert.match(result.missing["/model/files/2/sha256"]!, /m-00003-of-00004\.gguf.*refused/);
    assert.ok(!JSON.stringify(result.missing).includes(dir), "no machine path in a reason");
    assert.equal(result.nonconformingReasons.length, 1);
    assert.equal(result.parallelProblem, null, "a read refusal is not a worker failure");
  });
});

Deno.test("a shard the operating system refuses to open is null + reason on the worker path too", async () => {
  await withShards(async (dir, contents) => {
    const base = defaultProbeDeps();
    const blocked = join(dir, "m-00002-of-00004.gguf");
    // What the runtime makes of EACCES on open (a mode-000 file for a non-root user), injected so the test
    // asserts the same thing as root, on Windows, and anywhere else.
    const osRefusal = Object.assign(new Error("Permission denied (os error 13)"), {
      name: "PermissionDenied",
      code: "EACCES",
    });
    let refusedOpens = 0;
    const deps: ProbeDeps = {
      ...base,
      openReader: (path) => {
        if (path !== blocked) return base.openReader(path);
        refusedOpens++;
        return Promise.resolve(refusalFrom(osRefusal, `open ${path}`, "read"));
      },
    };
    const result = await findAndHashModelFiles(
      { modelPath: join(dir, "m-00001-of-00004.gguf"), cacheDir: null, maxParallel: 4, parallelMinBytes: 0 },
      deps,
    );
    assert.ok(refusedOpens >= 1, "the blocked shard was opened through the injected reader");
    assert.deepEqual(result.files?.map((f) => f.sha256), [
      sha256(contents[0]!),
      null,
      sha256(contents[2]!),
      sha256(contents[3]!),
    ]);
    assert.match(result.missing["/model/files/1/sha256"]!, /denied access/);
    assert.ok(!JSON.stringify(result.missing).includes(dir), "no machine path in a reason");
    assert.equal(result.parallelProblem, null, "an OS refusal is not a worker failure");
  });
});

Deno.test({
  name: "a real mode-000 shard is null + reason on the worker path (needs a non-root POSIX user)",
  // Root reads a mode-000 file anyway and Windows has no such mode: the injected refusal above covers those.
  ignore: Deno.build.os === "windows" || Deno.uid() === 0,
  fn: async () => {
    await withShards(async (dir, contents) => {
      await chmod(join(dir, "m-00002-of-00004.gguf"), 0o000);
      const result = await findAndHashModelFiles(
        { modelPath: join(dir, "m-00001-of-00004.gguf"), cacheDir: null, maxParallel: 4, parallelMinBytes: 0 },
        defaultProbeDeps(),
      );
      assert.equal(result.files?.[1]?.sha256, null);
      assert.equal(result.files?.[0]?.sha256, sha256(contents[0]!));
      assert.equal(result.files?.[3]?.sha256, sha256(contents[3]!));
      assert.match(result.missing["/model/files/1/sha256"]!, /denied access/);
    });
  },
});

/** A fake worker that hashes nothing: it starts, then dies on the first chunk. */
function dyingWorker(): HashWorkerPort {
  let onMessage: (m: unknown) => void = () => {};
  let onFailure: (r: string) => void = () => {};
  queueMicrotask(() => onMessage({ kind: "ready" }));
  return {
    post: (message) => {
      if ((message as { kind: string }).kind === "chunk") queueMicrotask(() => onFailure("out of memory (fake)"));
    },
    onMessage: (l) => (onMessage = l),
    onFailure: (l) => (onFailure = l),
    terminate: () => {},
  };
}

Deno.test("a worker that dies mid-file, or cannot start, falls back to in-thread hashing with the right hashes", async () => {
  await withShards(async (dir, contents) => {
    const modelPath = join(dir, "m-00001-of-00004.gguf");
    const expected = contents.map(sha256);
    const dies = await findAndHashModelFiles(
      { modelPath, cacheDir: null, maxParallel: 2, parallelMinBytes: 0 },
      { ...defaultProbeDeps(), startHashWorker: dyingWorker },
    );
    assert.deepEqual(dies.files?.map((f) => f.sha256), expected);
    assert.match(dies.parallelProblem ?? "", /in this thread.*out of memory \(fake\)/);
    assert.deepEqual(dies.missing, {});

    const throws = await findAndHashModelFiles(
      { modelPath, cacheDir: null, maxParallel: 4, parallelMinBytes: 0 },
      {
        ...defaultProbeDeps(),
        startHashWorker: () => {
          throw new TypeError("workers are not supported here");
        },
      },
    );
    assert.deepEqual(throws.files?.map((f) => f.sha256), expected);
    assert.equal(throws.hashWorkers, 0);
    assert.match(throws.parallelProblem ?? "", /cannot start a hash worker: workers are not supported here/);

    const missingModule = await findAndHashModelFiles(
      { modelPath, cacheDir: null, maxParallel: 2, parallelMinBytes: 0 },
      {
        ...defaultProbeDeps(),
        startHashWorker: () => {
          const worker = new Worker(new URL("./no_such_worker.js", import.meta.url).href, { type: "module" });
          return {
            post: (m, t) => worker.postMessage(m, t),
            onMessage: (l) => worker.addEventListener("message", (e) => l(e.data)),
            onFailure: (l) =>
              worker.addEventListener("error", (e) => {
                e.preventDefault();
                l(e.message);
              }),
            terminate: () => worker.terminate(),
          };
        },
      },
    );
    assert.deepEqual(missingModule.files?.map((f) => f.sha256), expected);
    assert.equal(missingModule.hashWorkers, 0);
    assert.match(missingModule.parallelProblem ?? "", /hash worker failed/);
  });
});

Deno.test("cached shards are not hashed again and start no worker; the rest hash on workers", async () => {
  await withShards(async (dir, contents) => {
    const cacheDir = join(dir, "cache");
    const modelPath = join(dir, "m-00001-of-00004.gguf");
    const first = counting(defaultProbeDeps());
    await findAndHashModelFiles({ modelPath, cacheDir, maxParallel: 4, parallelMinBytes: 0 }, first);
    assert.equal(first.workers, 4);
    await writeFile(join(dir, "m-00004-of-00004.gguf"), contents[0]!);
    const second = counting(defaultProbeDeps());
    const again = await findAndHashModelFiles({ modelPath, cacheDir, maxParallel: 4, parallelMinBytes: 0 }, second);
    assert.deepEqual(again.details.map((d) => d.fromCache), [true, true, true, false]);
    assert.equal(second.workers, 0, "one file left to hash: no worker");
    assert.deepEqual(again.files?.map((f) => f.sha256), [...contents.slice(0, 3), contents[0]!].map(sha256));
  });
});

Deno.test("under the parallel threshold, files hash in this thread and no worker starts", async () => {
  await withShards(async (dir) => {
    const deps = counting(defaultProbeDeps());
    const result = await findAndHashModelFiles(
      { modelPath: join(dir, "m-00001-of-00004.gguf"), cacheDir: null, maxParallel: 4 },
      deps,
    );
    assert.equal(deps.workers, 0);
    assert.equal(result.hashWorkers, 0);
    assert.equal(result.parallelProblem, null);
  });
});
