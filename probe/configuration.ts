/**
 * Configuration objects (kv_cache, expert_cache, offloading, prefill, mtp, calibration, experimental_options)
 * from the engine's command line, under the engine's own option names (the long flag without dashes) and JSON
 * values. The option table is llama-server's; flags it does not know are listed in `unclassified`.
 */
import type { OptionObject } from "../contract/mod.ts";
import type { MissingMap } from "./_deps.ts";

/** The configuration object names of the contract. */
export const CONFIGURATION_OBJECTS = [
  "kv_cache",
  "expert_cache",
  "offloading",
  "prefill",
  "mtp",
  "calibration",
  "experimental_options",
] as const;
export type ConfigurationObjectName = typeof CONFIGURATION_OBJECTS[number];

type Category = ConfigurationObjectName | "context" | "capacity" | "model" | "other" | "operational";
/** 0: a switch; 1: takes a value; "optional": takes the next word when it is not a flag. */
type Arity = 0 | 1 | "optional";
interface OptionSpec {
  name: string;
  arity: Arity;
  category: Category;
}

const TABLE: Array<[aliases: string, arity: Arity, category: Category]> = [
  ["-c --ctx-size", 1, "context"],
  ["-np --parallel", 1, "capacity"],
  ["-m --model", 1, "model"],
  ["-ctk --cache-type-k", 1, "kv_cache"],
  ["-ctv --cache-type-v", 1, "kv_cache"],
  ["-kvu --kv-unified", 0, "kv_cache"],
  ["-nkvo --no-kv-offload", 0, "kv_cache"],
  ["--cache-reuse", 1, "kv_cache"],
  ["-cram --cache-ram", 1, "kv_cache"],
  ["--swa-full", 0, "kv_cache"],
  ["--cache-prompt", 0, "kv_cache"],
  ["--no-cache-prompt", 0, "kv_cache"],
  ["--context-shift", 0, "kv_cache"],
  ["--no-context-shift", 0, "kv_cache"],
  ["-dt --defrag-thold", 1, "kv_cache"],
  ["-ngl --gpu-layers --n-gpu-layers", 1, "offloading"],
  ["-sm --split-mode", 1, "offloading"],
  ["-ts --tensor-split", 1, "offloading"],
  ["-mg --main-gpu", 1, "offloading"],
  ["-dev --device", 1, "offloading"],
  ["-ot --override-tensor", 1, "offloading"],
  ["-cmoe --cpu-moe", 0, "offloading"],
  ["-ncmoe --n-cpu-moe", 1, "offloading"],
  ["--mmap", 0, "offloading"],
  ["--no-mmap", 0, "offloading"],
  ["--mlock", 0, "offloading"],
  ["--numa", 1, "offloading"],
  ["-fit --fit", "optional", "offloading"],
  ["--no-op-offload", 0, "offloading"],
  ["-b --batch-size", 1, "prefill"],
  ["-ub --ubatch-size", 1, "prefill"],
  ["-fa --flash-attn", "optional", "prefill"],
  ["-tb --threads-batch", 1, "prefill"],
  ["-cb --cont-batching", 0, "prefill"],
  ["-nocb --no-cont-batching", 0, "prefill"],
  ["-md --model-draft", 1, "mtp"],
  ["--draft-max --draft --draft-n", 1, "mtp"],
  ["--draft-min --draft-n-min", 1, "mtp"],
  ["--draft-p-min", 1, "mtp"],
  ["-ngld --gpu-layers-draft --n-gpu-layers-draft", 1, "mtp"],
  ["-cd --ctx-size-draft", 1, "mtp"],
  ["-devd --device-draft", 1, "mtp"],
  ["-ctkd --cache-type-k-draft", 1, "mtp"],
  ["-ctvd --cache-type-v-draft", 1, "mtp"],
  ["--spec-replace", 1, "mtp"],
  ["--rope-scaling", 1, "experimental_options"],
  ["--rope-scale", 1, "experimental_options"],
  ["--rope-freq-base", 1, "experimental_options"],
  ["--rope-freq-scale", 1, "experimental_options"],
  ["--yarn-orig-ctx", 1, "experimental_options"],
  ["--yarn-ext-factor", 1, "experimental_options"],
  ["--yarn-attn-factor", 1, "experimental_options"],
  ["--yarn-beta-slow", 1, "experimental_options"],
  ["--yarn-beta-fast", 1, "experimental_options"],
  ["--override-kv", 1, "experimental_options"],
  ["-nr --no-repack", 0, "experimental_options"],
  ["-t --threads", 1, "other"],
  ["--jinja", 0, "other"],
  ["--no-jinja", 0, "other"],
  ["--chat-template", 1, "other"],
  ["--chat-template-file", 1, "other"],
  ["--chat-template-kwargs", 1, "other"],
  ["--reasoning-format", 1, "other"],
  ["-rea --reasoning", 1, "other"],
  ["--reasoning-budget", 1, "other"],
  ["-n --predict --n-predict", 1, "other"],
  ["-s --seed", 1, "other"],
  ["--temp", 1, "other"],
  ["--top-k", 1, "other"],
  ["--top-p", 1, "other"],
  ["--min-p", 1, "other"],
  ["--repeat-penalty", 1, "other"],
  ["--presence-penalty", 1, "other"],
  ["--frequency-penalty", 1, "other"],
  ["--host", 1, "operational"],
  ["--port", 1, "operational"],
  ["-a --alias", 1, "operational"],
  ["--api-key", 1, "operational"],
  ["--api-key-file", 1, "operational"],
  ["--metrics", 0, "operational"],
  ["--slots", 0, "operational"],
  ["--no-slots", 0, "operational"],
  ["--props", 0, "operational"],
  ["-to --timeout", 1, "operational"],
  ["--threads-http", 1, "operational"],
  ["--sse-ping-interval", 1, "operational"],
  ["--no-warmup", 0, "operational"],
  ["--no-webui", 0, "operational"],
  ["--path", 1, "operational"],
  ["-v --verbose", 0, "operational"],
  ["--log-file", 1, "operational"],
  ["--log-disable", 0, "operational"],
  ["--log-colors", "optional", "operational"],
  ["--log-prefix", 0, "operational"],
  ["--log-timestamps", 0, "operational"],
  ["-lv --verbosity --log-verbosity", 1, "operational"],
];

const OPTIONS = new Map<string, OptionSpec>();
for (const [aliases, arity, category] of TABLE) {
  const names = aliases.split(" ");
  const long = names.find((n) => n.startsWith("--")) ?? names[0] ?? "";
  for (const alias of names) OPTIONS.set(alias, { name: long.replace(/^-+/, ""), arity, category });
}

/** The engine command line read into the contract's configuration objects. */
export interface EngineArgsReading {
  objects: Record<ConfigurationObjectName, OptionObject>;
  /** -c / --ctx-size when given. */
  contextTokens: number | null;
  /** -np / --parallel when given. */
  serverCapacity: number | null;
  /** Model files named by -m / --model and -md / --model-draft, as written. */
  modelFiles: string[];
  /** Known options that belong to no configuration object (threads, template, sampling defaults). */
  otherOptions: OptionObject;
  /** Flags the table does not know, with their values, in order. */
  unclassified: string[];
}

function jsonValue(text: string): string | number {
  return /^-?\d+(\.\d+)?$/.test(text) && Number.isFinite(Number(text)) ? Number(text) : text;
}

function looksLikeFlag(word: string | undefined): boolean {
  return word !== undefined && /^-{1,2}[A-Za-z]/.test(word);
}

/**
 * Reads an engine argv (without the program name) such as ["-m","x.gguf","-c","32768","--cache-type-k","q8_0"].
 * Supports `--flag value` and `--flag=value`. A repeated option keeps every value as an array.
 */
export function readEngineArgs(argv: readonly string[]): EngineArgsReading {
  const objects = Object.fromEntries(CONFIGURATION_OBJECTS.map((name) => [name, {}])) as Record<
    ConfigurationObjectName,
    OptionObject
  >;
  const reading: EngineArgsReading = {
    objects,
    contextTokens: null,
    serverCapacity: null,
    modelFiles: [],
    otherOptions: {},
    unclassified: [],
  };
  const put = (target: OptionObject, name: string, value: unknown) => {
    if (!(name in target)) target[name] = value;
    else target[name] = Array.isArray(target[name]) ? [...target[name] as unknown[], value] : [target[name], value];
  };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? "";
    const eq = word.startsWith("--") ? word.indexOf("=") : -1;
    const flag = eq > 0 ? word.slice(0, eq) : word;
    const spec = OPTIONS.get(flag);
    let value: string | number | true = true;
    const next = argv[i + 1];
    const takes = spec ? spec.arity : "optional";
    if (eq > 0) value = jsonValue(word.slice(eq + 1));
    else if (takes === 1 && next !== undefined) value = jsonValue(argv[++i] ?? "");
    else if (takes === "optional" && next !== undefined && !looksLikeFlag(next)) value = jsonValue(argv[++i] ?? "");
    if (!spec) {
      if (looksLikeFlag(flag)) reading.unclassified.push(value === true ? flag : `${flag} ${value}`);
      else reading.unclassified.push(word);
      continue;
    }
    switch (spec.category) {
      case "operational":
        break;
      case "context":
        if (typeof value === "number" && Number.isInteger(value) && value > 0) reading.contextTokens = value;
        put(reading.otherOptions, spec.name, value);
        break;
      case "capacity":
        if (typeof value === "number" && Number.isInteger(value) && value > 0) reading.serverCapacity = value;
        put(reading.otherOptions, spec.name, value);
        break;
      case "model":
        if (typeof value === "string") reading.modelFiles.push(value);
        break;
      case "other":
        put(reading.otherOptions, spec.name, value);
        break;
      default:
        if (spec.name === "model-draft" && typeof value === "string") reading.modelFiles.push(value);
        put(objects[spec.category], spec.name, value);
    }
  }
  return reading;
}

/** Configuration objects plus why any is null. */
export interface ConfigurationObjects {
  objects: Record<ConfigurationObjectName, OptionObject | null>;
  /** Absolute pointers (/configuration/kv_cache, ...) -> reason. */
  missing: MissingMap;
  reading: EngineArgsReading | null;
}

/**
 * Builds the seven configuration objects. With the engine argv every object is known ({} means no relevant
 * option was set, so the engine's defaults apply). Without it (its process not observed, nothing declared) none is
 * known: /props reports context and slots only, so each object is null with `unknownReason` said.
 */
export function buildConfigurationObjects(
  engineArgs: readonly string[] | null,
  unknownReason = "",
): ConfigurationObjects {
  const missing: MissingMap = {};
  if (engineArgs === null) {
    const objects = Object.fromEntries(CONFIGURATION_OBJECTS.map((name) => {
      missing[`/configuration/${name}`] = "the engine's command line is unknown (the server was not started from a " +
        `profile${unknownReason ? `, and ${unknownReason}` : ""}) and the server does not report these options`;
      return [name, null];
    })) as Record<ConfigurationObjectName, null>;
    return { objects, missing, reading: null };
  }
  const reading = readEngineArgs(engineArgs);
  return { objects: reading.objects, missing, reading };
}

/**
 * Server settings the profile forbids (P:59: custom reasoning budgets, automatic effort changes and extra stop
 * strings are disabled and verified), read from the engine's command line: why each makes the run nonconforming.
 * llama-server reports none of them in /props or /slots, so the command line is the only witness; a run whose
 * command line could not be read says so elsewhere (configuration objects null with the reason).
 */
export function forbiddenServerSettings(otherOptions: Readonly<OptionObject>): string[] {
  const reasons: string[] = [];
  const budget = otherOptions["reasoning-budget"];
  if (budget !== undefined && budget !== -1) {
    reasons.push(
      `the server runs with --reasoning-budget ${JSON.stringify(budget)}: the profile leaves thinking unrestricted ` +
        "(-1) and forbids a custom reasoning budget; restart it without the flag",
    );
  }
  const reasoning = otherOptions["reasoning"];
  if (reasoning !== undefined && reasoning !== "auto" && reasoning !== "on") {
    reasons.push(
      `the server runs with --reasoning ${JSON.stringify(reasoning)}: the profile's requests turn thinking on ` +
        "themselves (chat_template_kwargs), which this setting overrides; restart it without the flag",
    );
  }
  return reasons;
}
