/**
 * The one `strata-bench` command, installed the ways docs/install.md says, each in a temporary prefix: `npm install -g` of
 * the checkout and of its tarball, `npx strata-bench` in the checkout, and `deno install` with the exact flags
 * docs/install.md prints. Each prints its version and commit and runs the demo from a folder of its own; the launcher passes
 * the exit code and SIGINT/SIGTERM through to the command (exit 4: an interrupted load, with its JSONL kept).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockEngine } from "../../mock/mod.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
const NPM = "npm";

async function sh(program: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const out = await new Deno.Command(program, { args, cwd, env, stdout: "piped", stderr: "piped" }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** Runs `strata-bench --version` and the instant demo with `bin` from a fresh folder; returns the version line. */
async function versionAndDemo(bin: string[], env: Record<string, string> = {}): Promise<string> {
  const cwd = await Deno.makeTempDir({ prefix: "strata-cwd-" });
  try {
    const version = await sh(bin[0]!, [...bin.slice(1), "--version"], cwd, env);
    assert.equal(version.code, 0, version.stderr);
    const demo = await sh(bin[0]!, [...bin.slice(1), "demo", "--quiet", "--time-scale", "0"], cwd, env);
    assert.equal(demo.code, 0, demo.stderr);
    // The result lands in the folder the command was started from, as the person expects.
    const [folder] = await readdir(join(cwd, "bench-results"));
    assert.ok(folder !== undefined && existsSync(join(cwd, "bench-results", folder, "results.json")), demo.stdout);
    return version.stdout.trim();
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

Deno.test("npm install -g of the checkout gives strata-bench: version, commit and the demo", async () => {
  const prefix = await Deno.makeTempDir({ prefix: "strata-npm-g-" });
  try {
    const installed = await sh(NPM, ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", REPO], REPO);
    assert.equal(installed.code, 0, installed.stderr);
    const version = await versionAndDemo([join(prefix, "bin", "strata-bench")]);
    assert.match(version, /^strata-bench \d+\.\d+\.\d+ \(commit [0-9a-f]{40}, source checkout\)$/);
  } finally {
    await Deno.remove(prefix, { recursive: true });
  }
});

Deno.test("npm install -g of the tarball (npm pack) gives the same command, its commit carried in COMMIT", async () => {
  const prefix = await Deno.makeTempDir({ prefix: "strata-npm-tgz-" });
  try {
    const packed = await sh(NPM, ["pack", "--pack-destination", prefix, "--silent"], REPO);
    assert.equal(packed.code, 0, packed.stderr);
    assert.equal(
      existsSync(join(REPO, "COMMIT")),
      false,
      "prepack's COMMIT is removed from the checkout after packing",
    );
    const tarball = join(prefix, packed.stdout.trim().split("\n").at(-1)!);
    const installed = await sh(NPM, [
      "install",
      "-g",
      "--prefix",
      join(prefix, "p"),
      "--no-audit",
      "--no-fund",
      tarball,
    ], prefix);
    assert.equal(installed.code, 0, installed.stderr);
    const head = (await sh("git", ["-C", REPO, "rev-parse", "HEAD"], REPO)).stdout.trim();
    // Under node_modules Deno strips no types: the launcher runs a copy of the sources from the cache folder.
    const version = await versionAndDemo([join(prefix, "p", "bin", "strata-bench")], {
      XDG_CACHE_HOME: join(prefix, "cache"),
    });
    assert.equal(version, `strata-bench 0.1.0 (commit ${head}, release build)`);
    const copies = await readdir(join(prefix, "cache", "strata-bench"));
    assert.equal(copies.length, 1, copies.join(", "));
    assert.match(copies[0]!, new RegExp(`^source-0\\.1\\.0-${head.slice(0, 12)}-[0-9a-f]{8}$`));
    assert.ok(existsSync(join(prefix, "cache", "strata-bench", copies[0]!, "mod.ts")));
  } finally {
    await Deno.remove(prefix, { recursive: true });
  }
});

Deno.test("the tarball installed into a project (its packages hoisted beside it) runs too, with a copy of its own", async () => {
  const prefix = await Deno.makeTempDir({ prefix: "strata-npm-local-" });
  try {
    const packed = await sh(NPM, ["pack", "--pack-destination", prefix, "--silent"], REPO);
    assert.equal(packed.code, 0, packed.stderr);
    const project = join(prefix, "project");
    await Deno.mkdir(project);
    await Deno.writeTextFile(join(project, "package.json"), '{"name":"uses-strata-bench","private":true}\n');
    const tarball = join(prefix, packed.stdout.trim().split("\n").at(-1)!);
    const installed = await sh(NPM, ["install", "--no-audit", "--no-fund", tarball], project);
    assert.equal(installed.code, 0, installed.stderr);
    // npm hoists the pinned packages into the project's node_modules: none sit under the package's own.
    assert.ok(existsSync(join(project, "node_modules", "typebox", "package.json")));
    assert.ok(!existsSync(join(project, "node_modules", "strata-bench", "node_modules", "typebox")));
    const version = await versionAndDemo([join(project, "node_modules", ".bin", "strata-bench")], {
      XDG_CACHE_HOME: join(prefix, "cache"),
    });
    assert.match(version, /^strata-bench 0\.1\.0 \(commit [0-9a-f]{40}, release build\)$/);
    const [copy] = await readdir(join(prefix, "cache", "strata-bench"));
    assert.equal(
      await Deno.realPath(join(prefix, "cache", "strata-bench", copy!, "node_modules")),
      await Deno.realPath(join(project, "node_modules")),
    );
  } finally {
    await Deno.remove(prefix, { recursive: true });
  }
});

Deno.test("npx strata-bench in the checkout runs the same launcher", async () => {
  const run = await sh(NPM, ["exec", "--no", "--", "strata-bench", "--version"], REPO);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^strata-bench \d+\.\d+\.\d+ \(commit [0-9a-f]{40}, source checkout\)\n$/);
});

Deno.test("deno install with docs/install.md's exact permission flags installs a working strata-bench", async () => {
  const readme = await readFile(join(REPO, "docs", "install.md"), "utf8");
  const line = /^(\.\/node_modules\/\.bin\/deno install [^\n]+)$/m.exec(readme.replace(/ \\\n\s+/g, " "))?.[1];
  assert.ok(line !== undefined, "docs/install.md shows the deno install command");
  const root = await Deno.makeTempDir({ prefix: "strata-deno-install-" });
  try {
    const words = line.split(/\s+/).map((
      w,
    ) => (w === "$HOME/.local" ? root : w.replaceAll("$HOME", Deno.env.get("HOME") ?? "")));
    const installed = await sh(join(REPO, words[0]!.replace(/^\.\//, "")), words.slice(1), REPO);
    assert.equal(installed.code, 0, installed.stderr);
    const version = await versionAndDemo([join(root, "bin", "strata-bench")], {
      PATH: `${join(REPO, "node_modules", ".bin")}:${Deno.env.get("PATH") ?? ""}`,
    });
    assert.match(version, /^strata-bench \d+\.\d+\.\d+ \(commit [0-9a-f]{40}, source checkout\)$/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the launcher lets --out name a folder outside the current one, absolute or relative", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "strata-cwd-" });
  const elsewhere = await Deno.makeTempDir({ prefix: "strata-out-" });
  try {
    for (const out of [elsewhere, `--out=${join(elsewhere, "b")}`]) {
      const flag = out.startsWith("--out=") ? [out] : ["--out", out];
      const demo = await sh("node", [join(REPO, "bin", "strata-bench.mjs"), "demo", "--quiet", ...flag], cwd);
      assert.equal(demo.code, 0, demo.stderr);
    }
    const first = (await readdir(elsewhere)).filter((f) => f !== "b");
    assert.equal(first.length, 1, "the result folder went into --out DIR");
    assert.ok(existsSync(join(elsewhere, first[0]!, "results.json")));
    assert.equal((await readdir(join(elsewhere, "b"))).length, 1, "--out=DIR too");
    assert.deepEqual(await readdir(cwd), [], "nothing was written into the current folder");
  } finally {
    await Deno.remove(cwd, { recursive: true });
    await Deno.remove(elsewhere, { recursive: true });
  }
});

Deno.test("the launcher passes the exit code through, and a SIGINT or SIGTERM to it reaches the command", async () => {
  const usage = await sh("node", [join(REPO, "bin", "strata-bench.mjs"), "load", "--bogus"], REPO);
  assert.equal(usage.code, 2, usage.stderr);
  const engine = await startMockEngine({ timeScale: 1, decodeTps: 40 });
  const out = await Deno.makeTempDir({ prefix: "strata-launcher-" });
  try {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      const child = new Deno.Command("node", {
        args: [
          join(REPO, "bin", "strata-bench.mjs"),
          "load",
          "--url",
          engine.url,
          "--concurrency",
          "1",
          "--duration",
          "60",
          "--no-headroom-check",
        ],
        cwd: out,
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      let err = "";
      const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      const deadline = setTimeout(() => child.kill("SIGKILL"), 60_000);
      while (!/load: writing /.test(err)) {
        const { value, done } = await reader.read();
        if (done) break;
        err += value;
      }
      assert.match(err, /load: writing /, err);
      // Only the launcher gets the signal (a supervisor's kill, not a terminal's Ctrl-C to the whole group).
      child.kill(signal);
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        err += value;
      }
      const status = await child.status;
      await child.stdout.cancel();
      clearTimeout(deadline);
      assert.equal(status.code, 4, err);
      assert.match(err, new RegExp(`${signal}: stopping the load`));
    }
    const files = (await readdir(join(out, "bench-results"))).filter((f) => f.endsWith(".jsonl"));
    assert.equal(files.length, 2);
  } finally {
    await engine.close();
    await Deno.remove(out, { recursive: true });
  }
});
