/**
 * What an independent reproduction must share with the run it reproduces (spec, "Future approved manifest":
 * "another person has run the protocol"): the same protocol, the same model and the same quantization, and neither
 * may be a simulation. The hardware, the engine build and the configuration may differ; those differences are
 * named so the manifest's maintainer and the page's reader see them.
 */
import { isObject, parseStrictJson } from "./web/mod.js";

/** The facts of a reviewed results.json that decide whether two runs are one protocol, model and quantization. */
export interface RunIdentity {
  runId: string;
  protocolId: string | null;
  modelId: string | null;
  quantization: string | null;
  /** The SHA-256 of every model file, sorted; null when any is unknown. */
  modelFiles: string[] | null;
  simulated: boolean;
  /** What may differ, by name ("GPU", "engine", ...), as text. */
  setup: Record<string, string>;
}

type Json = Record<string, unknown>;

function textOf(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function gpusOf(hardware: Json): string {
  const gpus = Array.isArray(hardware["gpus"]) ? hardware["gpus"] : null;
  if (gpus === null) return "not measured";
  return gpus.map((g) => (isObject(g) ? textOf(g["name"]) ?? "unnamed GPU" : "unnamed GPU")).join(" + ") || "none";
}

/** The identity of a results.json's bytes, or null when they are not a JSON object. */
export function runIdentity(resultsBytes: Uint8Array): RunIdentity | null {
  const parsed = parseStrictJson(new TextDecoder().decode(resultsBytes));
  if (!parsed.ok || !isObject(parsed.value)) return null;
  const result = parsed.value;
  const pick = (key: string): Json => (isObject(result[key]) ? result[key] as Json : {});
  const model = pick("model");
  const software = pick("software");
  const configuration = pick("configuration");
  const files = Array.isArray(model["files"]) ? model["files"] : null;
  const hashes = files?.map((f) => (isObject(f) ? textOf(f["sha256"]) : null)) ?? null;
  return {
    runId: textOf(pick("run")["id"]) ?? "unknown run",
    protocolId: textOf(pick("protocol")["id"]),
    modelId: textOf(model["id"]),
    quantization: textOf(model["quantization"]),
    modelFiles: hashes === null || hashes.length === 0 || hashes.includes(null) ? null : (hashes as string[]).sort(),
    simulated: pick("extensions")["simulated_engine"] === true,
    setup: {
      GPU: gpusOf(pick("hardware")),
      CPU: textOf(pick("hardware")["cpu"]) ?? "not measured",
      engine: textOf(software["engine_version"]) ?? "not measured",
      "engine commit": textOf(software["strata_commit"]) ?? "not measured",
      track: textOf(configuration["track"]) ?? "not measured",
      "context tokens": String(configuration["context_tokens"] ?? "not measured"),
      "server capacity": String(configuration["server_capacity"] ?? "not measured"),
    },
  };
}

/** Why `reproduction` does not reproduce `original`; empty when it may. */
export function reproductionProblems(original: RunIdentity, reproduction: RunIdentity): string[] {
  const problems: string[] = [];
  const pair = `${reproduction.runId} cannot reproduce ${original.runId}`;
  for (const run of [original, reproduction]) {
    if (run.simulated) {
      problems.push(`${pair}: ${run.runId} is a simulation (the scripted engine), not a run of a model`);
    }
  }
  if (original.protocolId !== reproduction.protocolId) {
    problems.push(`${pair}: protocols differ (${original.protocolId} and ${reproduction.protocolId})`);
  }
  const sameFiles = original.modelFiles !== null && reproduction.modelFiles !== null &&
    JSON.stringify(original.modelFiles) === JSON.stringify(reproduction.modelFiles);
  const sameNamed = original.modelId !== null && original.modelId === reproduction.modelId &&
    original.quantization !== null && original.quantization === reproduction.quantization;
  if (!sameFiles && !sameNamed) {
    const describe = (r: RunIdentity) =>
      `${r.modelId ?? "model not recorded"} / ${r.quantization ?? "quantization not recorded"}`;
    problems.push(
      `${pair}: they are not shown to be the same model and quantization (${describe(original)} and ` +
        `${describe(reproduction)}; the same model id and quantization, or the same model file hashes, are needed)`,
    );
  }
  return problems;
}

/** What differs between two runs' setups ("GPU: A vs B"); a reproduction may differ in these. */
export function setupDifferences(original: RunIdentity, reproduction: RunIdentity): string[] {
  return Object.entries(original.setup).flatMap(([name, value]) => {
    const other = reproduction.setup[name];
    return other === value ? [] : [`${name}: ${value} vs ${other}`];
  });
}
