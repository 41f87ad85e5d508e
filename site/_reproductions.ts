/**
 * What an independent reproduction must share with the run it reproduces (spec, "Future approved manifest":
 * "another person has run the protocol"): the same protocol, the same model and the same quantization, and neither
 * may be a simulation. It must also be another person's run on another machine: both entries name their submitters
 * (`submitted_by`, the pull requests' authors) and they differ, and the two results do not carry one machine token
 * (extensions.machine_token, an anonymous hash of the machine id). Two people with identical hardware have
 * different tokens; a result without a token is not compared by machine, which the link says. The hardware, the
 * engine build and the configuration may differ; those differences are named so the manifest's maintainer and the
 * page's reader see them.
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
  /** extensions.machine_token: the anonymous token of the measured machine; null when the result has none. */
  machineToken: string | null;
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
    machineToken: textOf(pick("extensions")["machine_token"]),
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

/** Who submitted a run (the manifest entry's submitted_by) beside its identity. */
export interface SubmittedRun {
  identity: RunIdentity;
  submittedBy: string | undefined;
}

/** Why `reproduction` is not another person's run on another machine than `original`; empty when it is. */
export function independenceProblems(original: SubmittedRun, reproduction: SubmittedRun): string[] {
  const pair = `${reproduction.identity.runId} cannot reproduce ${original.identity.runId}`;
  const problems: string[] = [];
  for (const run of [original, reproduction]) {
    if (run.submittedBy === undefined) {
      problems.push(
        `${pair}: the entry of ${run.identity.runId} names no submitter (submitted_by): an independent reproduction ` +
          "is another person's run, so both entries need the pull request's author (approved add --submitted-by)",
      );
    }
  }
  const [a, b] = [original.submittedBy, reproduction.submittedBy];
  if (a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase()) {
    problems.push(`${pair}: both were submitted by ${a}; an independent reproduction is another person's run`);
  }
  const token = original.identity.machineToken;
  if (token !== null && token === reproduction.identity.machineToken) {
    problems.push(
      `${pair}: both results carry machine token ${token.slice(0, 12)}... (extensions.machine_token): one machine ` +
        "measured both, so the second is a rerun, not an independent reproduction",
    );
  }
  return problems;
}

/** What differs between two runs' setups ("GPU: A vs B"); a reproduction may differ in these. */
export function setupDifferences(original: RunIdentity, reproduction: RunIdentity): string[] {
  const differences = Object.entries(original.setup).flatMap(([name, value]) => {
    const other = reproduction.setup[name];
    return other === value ? [] : [`${name}: ${value} vs ${other}`];
  });
  const untokened = [original, reproduction].filter((r) => r.machineToken === null).map((r) => r.runId);
  if (untokened.length > 0) {
    differences.push(`machine: not compared (${untokened.join(" and ")} carries no machine token)`);
  }
  return differences;
}

/** Every reason `reproduction` may not be linked to `original`: the same run, and another person and machine. */
export function linkProblems(original: SubmittedRun, reproduction: SubmittedRun): string[] {
  return [
    ...reproductionProblems(original.identity, reproduction.identity),
    ...independenceProblems(original, reproduction),
  ];
}

/** A manifest entry as the cross-entry rule reads it. */
interface LinkingEntry {
  run_id: string;
  reproduction_run_ids: readonly string[];
  submitted_by?: string;
}

/**
 * The reproduction rule across a manifest's entries (null: an entry that did not read): per entry, why each run it
 * lists as its reproduction may not be one. `identities` holds the runs whose results resolved.
 */
export function crossEntryProblems(
  entries: readonly (LinkingEntry | null)[],
  identities: ReadonlyMap<string, RunIdentity>,
): string[][] {
  const submitters = new Map(entries.flatMap((e) => (e === null ? [] : [[e.run_id, e.submitted_by] as const])));
  return entries.map((entry) => {
    const self = entry === null ? undefined : identities.get(entry.run_id);
    if (entry === null || self === undefined) return [];
    return entry.reproduction_run_ids.flatMap((id) => {
      const other = identities.get(id);
      return other === undefined ? [] : linkProblems(
        { identity: other, submittedBy: submitters.get(id) },
        { identity: self, submittedBy: entry.submitted_by },
      );
    });
  });
}
