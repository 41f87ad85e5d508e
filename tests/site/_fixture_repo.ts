/**
 * A results repository built for the site's tests: real result folders written by the tool itself (`mod.ts demo`,
 * and `mod.ts run` against `mod.ts mock` for a run whose engine dies), committed with git, and a manifest whose
 * entries cover every case the site must tell apart.
 *
 * The demo's results are labelled simulations and nonconforming, and no activated protocol id exists yet. To stand
 * in for approved standard results, `relabel` rewrites only results.json's labels: the protocol id (to TEST_ACTIVATED,
 * declared by PROTOCOLS_FILE as an activated id sharing the draft's workload), run.status, the simulation marks, and
 * identity fields (GPU, model, quantization), and records the measured digest of the relabelled result. The evidence
 * files stay exactly as the tool wrote them, so every hash and every recomputed number is still the tool's own.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { measuredDigest } from "../../report/measured.ts";
import { sha256Hex } from "../../contract/mod.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const MOD = join(REPO_ROOT, "mod.ts");
export const DENO = Deno.execPath();
export const DRAFT_ID = "strata-qwen38-thinking-v1-draft.1";
/** An activated id the tests declare; the site knows no activated protocol until the pilot freezes one. */
export const TEST_ACTIVATED = "test-activated-qwen38-thinking-v1";
export const PROTOCOLS_JSON = JSON.stringify({
  format: "strata-site-protocols",
  schema_version: 1,
  protocols: [{ id: TEST_ACTIVATED, stage: "activated", definition_of: DRAFT_ID }],
});

const decoder = new TextDecoder();

/** Runs a program; throws with its output when it fails and `ok` is expected. */
export async function run(
  command: string,
  args: string[],
  options: { cwd?: string; expect?: number[]; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, {
    args,
    stdout: "piped",
    stderr: "piped",
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: {
      GIT_AUTHOR_NAME: "Fixture Author",
      GIT_AUTHOR_EMAIL: "author@example.invalid",
      GIT_COMMITTER_NAME: "Fixture Maintainer",
      GIT_COMMITTER_EMAIL: "maintainer@example.invalid",
      NO_COLOR: "1",
      ...options.env,
    },
  }).output();
  const result = { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
  const expect = options.expect ?? [0];
  if (!expect.includes(result.code)) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

/** `git -C repo args...`. */
export function git(repo: string, ...args: string[]) {
  return run("git", ["-C", repo, ...args]);
}

/** One result folder from `mod.ts demo --time-scale 0`, written under `parent`; returns its path. */
export async function demoFolder(parent: string, optionalConcurrency = false): Promise<string> {
  const out = await run(DENO, [
    "run",
    "-q",
    "-P=run",
    `--allow-write=${parent}`,
    "--no-prompt",
    MOD,
    "demo",
    "--time-scale",
    "0",
    "--out",
    parent,
    ...(optionalConcurrency ? ["--optional-concurrency"] : []),
  ], { cwd: REPO_ROOT });
  return out.stdout.trim().split("\n").at(-1) as string;
}

/**
 * A result folder from `mod.ts run` against `mod.ts mock --script` whose engine dies at sanity-R3: the remaining
 * sanity requests are skipped, so the run is partial (and nonconforming, the engine being scripted).
 */
export async function dyingEngineFolder(parent: string): Promise<string> {
  const script = join(parent, "die.json");
  await Deno.writeTextFile(script, JSON.stringify({ "sanity-R3": { fault: { kind: "die" } } }));
  const mock = new Deno.Command(DENO, {
    args: ["run", "-q", "-P=mock", "--no-prompt", MOD, "mock", "--port", "0", "--instant", "--script", script],
    stdout: "piped",
    stderr: "null",
    cwd: REPO_ROOT,
  }).spawn();
  try {
    const reader = mock.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n")) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error("mock ended before printing its URL");
      text += chunk.value;
    }
    reader.releaseLock();
    const url = text.split("\n")[0] as string;
    const out = await run(DENO, [
      "run",
      "-q",
      "-P=run",
      `--allow-write=${parent}`,
      "--no-prompt",
      MOD,
      "run",
      "--url",
      url,
      "--out",
      parent,
    ], { cwd: REPO_ROOT, expect: [1] });
    return out.stdout.trim().split("\n").at(-1) as string;
  } finally {
    try {
      mock.kill("SIGTERM");
    } catch {
      // already gone
    }
    await mock.status;
    await mock.stdout.cancel().catch(() => {});
  }
}

/** A parsed results.json or evidence line that the fixtures edit freely. */
// deno-lint-ignore no-explicit-any
export type Editable = Record<string, any>;

/** What `relabel` changes in a results.json. */
export interface Relabel {
  protocolId?: string;
  status?: "complete" | "partial" | "nonconforming";
  runId?: string;
  gpu?: string;
  model?: string;
  quant?: string;
  engine?: string;
  /** Any further edit of the parsed results.json. */
  edit?: (result: Editable) => void;
}

/** Rewrites labels of `folder`/results.json (see the module note); the evidence files are left as they are. */
export async function relabel(folder: string, change: Relabel): Promise<void> {
  const path = join(folder, "results.json");
  const result: Editable = JSON.parse(await Deno.readTextFile(path));
  if (change.protocolId !== undefined) result.protocol.id = change.protocolId;
  if (change.runId !== undefined) result.run.id = change.runId;
  if (change.status !== undefined && change.status !== "nonconforming") {
    result.run.status = change.status;
    result.extensions.simulated_engine = false;
    delete result.extensions.nonconforming_reasons;
    result.extensions.status_reasons = change.status === "partial" ? ["the engine died during the sanity stage"] : [];
  }
  if (change.gpu !== undefined) {
    result.hardware.gpus = [{
      device_index: 0,
      name: change.gpu,
      memory_bytes: 12884901888,
      memory_kind: "dedicated",
      power_limit_w: 170,
    }];
    delete result.missing["/hardware/gpus"];
    // Another GPU stands for another machine: its own anonymous machine token.
    result.extensions.machine_token = sha256Hex(`stand-in machine with ${change.gpu}`);
    delete result.missing["/extensions/machine_token"];
  }
  if (change.model !== undefined) {
    result.model.id = change.model;
    delete result.missing["/model/id"];
  }
  if (change.quant !== undefined) {
    result.model.quantization = change.quant;
    delete result.missing["/model/quantization"];
  }
  if (change.engine !== undefined) result.software.engine_version = change.engine;
  if (change.status !== undefined && change.status !== "nonconforming") await standInIdentity(result);
  change.edit?.(result);
  await relabelConfig(folder, result);
  await recordMeasured(folder, result);
  // Compact, as the run writes it (evidence version 5).
  await Deno.writeTextFile(path, `${JSON.stringify(result)}\n`);
}

/**
 * Records the measured digest of the relabelled result as a run would (report/measured.ts), so that the site's and
 * report's digest checks read the stand-in as the tool's own; a forgery that edits after this is caught by them.
 */
async function recordMeasured(folder: string, result: Editable): Promise<void> {
  const recorded = result.extensions?.measured_digest;
  if (recorded === undefined) return;
  const outputs = await Deno.readTextFile(join(folder, recorded.outputs.path)).catch(() => "");
  result.extensions.measured_digest = measuredDigest(result, recorded.outputs.path, outputs);
}

/**
 * The identity a conforming run records and a demo lacks (the status rules require it): full engine and runner
 * commits and a SHA-256 for every model file (one per model and quantization).
 */
async function standInIdentity(result: Editable): Promise<void> {
  result.software.strata_commit = "80fb11a0000000000000000000000000000000aa";
  result.software.runner_commit ??= "0000000000000000000000000000000000000001";
  delete result.missing["/software/strata_commit"];
  delete result.missing["/software/runner_commit"];
  const named = new TextEncoder().encode(`${result.model.id} ${result.model.quantization}`);
  const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", named))];
  const sha = digest.map((b) => b.toString(16).padStart(2, "0")).join("");
  result.model.files = result.model.files.map((file: Editable, i: number) => {
    delete result.missing[`/model/files/${i}/sha256`];
    return { ...file, sha256: sha };
  });
}

/**
 * config.json relabelled with the result (every judge holds its declared facts to results.json), re-hashed in it:
 * the model, quantization, engine commit, track and notes as results.json now says them, and no simulation.
 */
async function relabelConfig(folder: string, result: Editable): Promise<void> {
  const config = join(folder, "config.json");
  const parsed: Editable = JSON.parse(await Deno.readTextFile(config));
  parsed.simulated = result.extensions.simulated_engine === true;
  parsed.track = result.configuration.track;
  parsed.track_notes = result.configuration.track_notes;
  parsed.declared.model_id = result.model.id;
  parsed.declared.quantization = result.model.quantization;
  parsed.declared.engine_commit = result.software.strata_commit;
  await Deno.writeTextFile(config, `${JSON.stringify(parsed, null, 2)}\n`);
  const configSha = await sha256File(config);
  for (const a of result.artifacts) if (a.path === "config.json") a.sha256 = configSha;
}

/** SHA-256 hex of a file. */
/** A manifest's review time for results made earlier in this test: now, to the second (a review follows its run). */
export function reviewedNow(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, "Z");
}

export async function sha256File(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Copies a result folder (flat) to `to`. */
export async function copyFolder(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isFile) await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

/** `mod.ts ARGS` under the given permission flags, in `cwd`. */
export function strataBench(args: string[], permissions: string[], cwd = REPO_ROOT, expect = [0, 1, 2, 3]) {
  return run(DENO, ["run", "-q", "--no-prompt", ...permissions, MOD, ...args], { cwd, expect });
}
