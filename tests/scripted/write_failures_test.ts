/**
 * Write failures during a run, injected into the result folder's file writes: the run stops with RunWriteError
 * (exit 3 in the CLI) naming the folder and the requests kept, outputs.jsonl holds only whole lines, and a results
 * root that cannot take a result refuses the run before the probe and the model hashing.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ResultFiles, resultFiles } from "../../runtime/mod.ts";
import { RunRefusedError, RunWriteError } from "../../runner/run_errors.ts";
import { RESULT_FILES } from "../../report/mod.ts";
import { runScripted } from "./_harness.ts";

function failure(code: string): Error {
  return Object.assign(new Error(`${code}: injected`), { code });
}

/** The real files with appends failing from the `failAt`-th call on (1-based). */
function failingAppends(code: string, failAt: number): ResultFiles {
  let calls = 0;
  return {
    ...resultFiles,
    appendDurable(path, bytes) {
      calls++;
      return calls >= failAt ? Promise.reject(failure(code)) : resultFiles.appendDurable(path, bytes);
    },
  };
}

async function folderOf(dir: string): Promise<string> {
  const names = await readdir(join(dir, "results"));
  assert.equal(names.length, 1, names.join(", "));
  return join(dir, "results", names[0]!);
}

async function runExpectingWriteError(files: ResultFiles): Promise<{ error: RunWriteError; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "strata-write-" });
  try {
    await runScripted({ dir, deps: { files } });
  } catch (error) {
    if (error instanceof RunWriteError) return { error, dir };
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
  await Deno.remove(dir, { recursive: true });
  assert.fail("the run did not stop on the write failure");
}

for (const code of ["ENOSPC", "EIO", "EROFS"]) {
  Deno.test(`${code} on the 6th evidence line stops the run, names the folder and keeps 5 whole lines`, async () => {
    const { error, dir } = await runExpectingWriteError(failingAppends(code, 6));
    try {
      const folder = await folderOf(dir);
      assert.equal(error.code, code);
      assert.equal(error.keptRequests, 5);
      assert.equal(error.folder, folder);
      assert.ok(error.message.includes(`"${folder}"`), error.message);
      assert.match(error.message, /keeps the whole evidence of 5 request\(s\) and there is no results\.json/);
      const text = await readFile(join(folder, RESULT_FILES.outputs), "utf8");
      assert.ok(text.endsWith("\n"));
      const lines = text.trimEnd().split("\n");
      assert.equal(lines.length, 5);
      for (const line of lines) assert.equal(typeof JSON.parse(line).request_id, "string");
      assert.ok(!(await readdir(folder)).includes(RESULT_FILES.results));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("a results.json that cannot be written stops with RunWriteError keeping all 22 lines", async () => {
  const files: ResultFiles = {
    ...resultFiles,
    writeAtomic: (path, bytes) =>
      path.endsWith(RESULT_FILES.results) ? Promise.reject(failure("ENOSPC")) : resultFiles.writeAtomic(path, bytes),
  };
  const { error, dir } = await runExpectingWriteError(files);
  try {
    assert.equal(error.keptRequests, 22);
    assert.match(error.message, /writing results\.json/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a results root that cannot take a result refuses the run before the probe, hashing or any request", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-root-" });
  let probed = false;
  let sent = false;
  try {
    await assert.rejects(
      runScripted({
        dir,
        deps: {
          files: { ...resultFiles, checkRoot: () => Promise.resolve({ ok: false, reason: "the disk is read-only" }) },
          probeServer: () => {
            probed = true;
            throw new Error("probed");
          },
          streamChat: () => {
            sent = true;
            throw new Error("sent");
          },
        },
      }),
      (error: unknown) =>
        error instanceof RunRefusedError && error.code === "folder" && /read-only/.test(error.message),
    );
    assert.equal(probed, false);
    assert.equal(sent, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a result folder swapped for a link mid-run is not written through: the run stops, nothing lands outside", async () => {
  const elsewhere = await Deno.makeTempDir({ prefix: "strata-elsewhere-" });
  let calls = 0;
  let moved = "";
  const swapping: ResultFiles = {
    ...resultFiles,
    async appendDurable(path, bytes) {
      await resultFiles.appendDurable(path, bytes);
      // After the 3rd evidence line, the folder is moved away and a link to another folder put in its place.
      if (++calls === 3) {
        const folder = join(path, "..");
        moved = `${folder}.moved`;
        await Deno.rename(folder, moved);
        await Deno.symlink(elsewhere, folder);
      }
    },
  };
  const { error, dir } = await runExpectingWriteError(swapping);
  try {
    assert.equal(error.code, "FOLDER_REPLACED");
    assert.match(error.message, /the folder was replaced during the run .* nothing more was written through it/);
    assert.match(error.message, /Leave the folder in place while a run writes it and run again/);
    assert.deepEqual([...Deno.readDirSync(elsewhere)], [], "nothing was written through the link");
    const kept = (await readFile(join(moved, RESULT_FILES.outputs), "utf8")).trimEnd().split("\n");
    assert.equal(kept.length, 3, "the lines written before the swap stay in the moved folder");
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(elsewhere, { recursive: true });
  }
});

Deno.test("a README that cannot be drawn costs nothing measured: results.json is written and says why", async () => {
  const { cleanup } = await import("./_harness.ts");
  const run = await runScripted({
    deps: {
      renderReadme: () => {
        throw new RangeError("Maximum call stack size exceeded");
      },
    },
  });
  try {
    assert.deepEqual(run.problems, [], "the result is valid");
    assert.equal(run.result.run.status === "complete" || run.result.run.status === "nonconforming", true);
    assert.equal(
      run.result.extensions?.["readme_problem"],
      "README.md could not be drawn: Maximum call stack size exceeded",
    );
    const readme = await readFile(join(run.report.folder, RESULT_FILES.readme), "utf8");
    assert.match(readme, /README\.md could not be drawn \(Maximum call stack size exceeded\)\. results\.json holds/);
  } finally {
    await cleanup(run);
  }
});

Deno.test("a README the sanitizer overflows on costs nothing measured: the short README is written instead", async () => {
  const { cleanup } = await import("./_harness.ts");
  const { machineSanitizer } = await import("../../sanitize/mod.ts");
  const real = machineSanitizer();
  // Only the full README has second-level sections; the short one does not.
  const overflowing = {
    json: real.json,
    text: (text: string) => {
      if (text.includes("\n## ")) throw new RangeError("Maximum call stack size exceeded");
      return real.text(text);
    },
  };
  const run = await runScripted({ deps: { sanitizers: overflowing } });
  try {
    assert.deepEqual(run.problems, [], "the result is valid");
    assert.equal(
      run.result.extensions?.["readme_problem"],
      "README.md could not be sanitized: Maximum call stack size exceeded",
    );
    const readme = await readFile(join(run.report.folder, RESULT_FILES.readme), "utf8");
    assert.match(
      readme,
      /README\.md could not be sanitized \(Maximum call stack size exceeded\)\. results\.json holds/,
    );
  } finally {
    await cleanup(run);
  }
});

Deno.test("results.json that cannot be assembled stops with a defect report, outputs.jsonl kept whole", async () => {
  const { machineSanitizer } = await import("../../sanitize/mod.ts");
  const real = machineSanitizer();
  const failing = {
    text: real.text,
    // Only the assembled result's hardware section (it alone has "ram_bytes") meets the failure.
    json: (value: unknown) => {
      if (value !== null && typeof value === "object" && "ram_bytes" in value) throw new TypeError("injected");
      return real.json(value);
    },
  };
  const dir2 = await Deno.makeTempDir({ prefix: "strata-assembly-" });
  try {
    const refused = await runScripted({ dir: dir2, deps: { sanitizers: failing } }).then(() => null, (e) => e);
    assert.ok(refused instanceof RunWriteError, String(refused));
    assert.equal(refused.code, "ASSEMBLY");
    assert.match(
      refused.message,
      /^Cannot assemble results\.json in ".*": injected\. This is a defect of strata-bench/,
    );
    assert.match(refused.message, /outputs\.jsonl keeps the whole evidence of 22 request\(s\)/);
    const lines = (await readFile(join(await folderOf(dir2), RESULT_FILES.outputs), "utf8")).trimEnd().split("\n");
    assert.equal(lines.length, 22);
  } finally {
    await Deno.remove(dir2, { recursive: true });
  }
});
