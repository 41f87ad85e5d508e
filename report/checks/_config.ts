/**
 * config.json against results.json: the run writes both from the same options, so every fact config.json states
 * must be the one results.json records (docs/results.md, "config.json"). A file edited after the run and only
 * re-hashed in `artifacts` would otherwise carry a second, unchecked story beside the result.
 *
 * Both files are sanitized alike, and a person may redact config.json (it is evidence text as a whole) and the
 * command, background workloads and track notes of results.json: a string with placeholders agrees with one it can
 * have been redacted from (each placeholder, and in config.json a person's `<redacted>`, standing for any text). A
 * key the run never writes is refused, so the file holds nothing no judge reads.
 */
import { isJsonObject } from "../../contract/mod.ts";
import { parseStrictJsonPlain } from "../../score/mod.ts";
import type { ProblemSink } from "../_pointer.ts";
import { mayStandFor } from "../_stated_possible.ts";

/** config.json keys and the results.json value each must agree with (null: written, but not in results.json). */
const TOP: Readonly<Record<string, readonly string[] | null>> = {
  command: ["run", "command"],
  base_url: null,
  optional_concurrency: ["run", "optional_concurrency"],
  track: ["configuration", "track"],
  track_notes: ["configuration", "track_notes"],
  declared: null,
  pack_dir: null,
  check_template: null,
  simulated: ["extensions", "simulated_engine"],
  dialect: ["extensions", "dialect"],
  dialect_evidence: ["extensions", "dialect_evidence"],
  reasoning_budget_tokens_sent: ["extensions", "reasoning_budget_tokens_sent"],
  reasoning_budget_why: ["extensions", "reasoning_budget_why"],
  sampling: ["configuration", "sampling"],
  chat_template_kwargs: ["configuration", "chat_template_kwargs"],
  request_settings_example: null,
};

/** config.json /declared keys (the operator's flags) and where results.json records them. */
const DECLARED: Readonly<Record<string, readonly string[] | null>> = {
  model_id: ["model", "id"],
  model_revision: ["model", "revision"],
  source_revision: ["model", "source_revision"],
  tokenizer_revision: ["model", "tokenizer_revision"],
  quantization: ["model", "quantization"],
  custom_pack: ["model", "custom_pack"],
  background: ["hardware", "background_workloads"],
  build_options: ["software", "build_options"],
  engine_commit: null,
  engine_source: null,
  engine_args: null,
};

type Json = unknown;

function at(root: Json, path: readonly string[]): Json {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, Json>)[key];
  }
  return value;
}

const isObject = (value: Json): value is Record<string, Json> => isJsonObject<Json>(value);

/** Whether config.json's value can be results.json's: equal, or redacted from it on either side. */
function agrees(config: Json, result: Json): boolean {
  if (typeof config === "string" && typeof result === "string") {
    return config === result || mayStandFor(byHand(config), result) || mayStandFor(byHand(result), config);
  }
  if (Array.isArray(config) && Array.isArray(result)) {
    return config.length === result.length && config.every((c, i) => agrees(c, result[i]));
  }
  if (isObject(config) && isObject(result)) {
    const keys = Object.keys(config);
    return keys.length === Object.keys(result).length && keys.every((k) => Object.hasOwn(result, k)) &&
      keys.every((k) => agrees(config[k], result[k]));
  }
  return Object.is(config, result);
}

/** A person's own mark in config.json (docs/results.md) stands for any text, as the sanitizer's placeholders do. */
function byHand(text: string): string {
  return text.replaceAll(HAND_MARK, "<secret>");
}

/** What docs/results.md asks a person to write in config.json where they removed text. */
const HAND_MARK = "<redacted>";

function show(value: Json): string {
  const text = value === undefined ? "absent" : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Every disagreement of config.json (its bytes) with results.json (its parsed value), as problems. */
export function checkConfigAgrees(bytes: Uint8Array, path: string, result: Json, problems: ProblemSink): void {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    problems.push({ pointer: "/artifacts", message: `${path} is not UTF-8 text` });
    return;
  }
  const parsed = parseStrictJsonPlain(text);
  if (!parsed.ok || !isObject(parsed.value)) {
    problems.push({ pointer: "/artifacts", message: `${path} is not one JSON object: the run writes one` });
    return;
  }
  const config = parsed.value;
  const say = (pointer: string, where: string, message: string) =>
    problems.push({ pointer, message: `${path} ${where} ${message}` });
  const compare = (
    table: Readonly<Record<string, readonly string[] | null>>,
    object: Record<string, Json>,
    prefix: string,
  ) => {
    for (const key of Object.keys(object)) {
      if (!Object.hasOwn(table, key)) say("/artifacts", `${prefix}/${key}`, "is a key no run writes");
    }
    for (const [key, target] of Object.entries(table)) {
      if (!Object.hasOwn(object, key)) {
        say("/artifacts", `${prefix}/${key}`, "is absent: the run writes every key");
        continue;
      }
      if (target === null) continue;
      const mine = object[key] === "" ? null : object[key];
      const theirs = at(result, target);
      if (!agrees(mine, theirs)) {
        say(`/${target.join("/")}`, `${prefix}/${key}`, `is ${show(mine)}, but results.json records ${show(theirs)}`);
      }
    }
  };
  compare(TOP, config, "");
  if (isObject(config["declared"])) {
    const declared = config["declared"];
    compare(DECLARED, declared, "/declared");
    checkEngineFacts(declared, result, say);
  } else if (Object.hasOwn(config, "declared")) {
    say("/artifacts", "/declared", "is not an object");
  }
  checkExample(config, result, say);
}

/** The declared engine commit is the one recorded; a command line the result says was declared was declared. */
function checkEngineFacts(
  declared: Record<string, Json>,
  result: Json,
  say: (pointer: string, where: string, message: string) => void,
): void {
  const commit = declared["engine_commit"];
  const recorded = at(result, ["software", "strata_commit"]);
  if (typeof commit === "string" && commit !== "" && commit.toLowerCase() !== recorded) {
    say(
      "/software/strata_commit",
      "/declared/engine_commit",
      `is ${show(commit)}, but results.json records ${show(recorded)}`,
    );
  }
  const provenance = at(result, ["extensions", "engine_command_line", "provenance"]);
  const args = declared["engine_args"];
  const given = typeof args === "string" && args !== "";
  if (provenance === "declared" && !given) {
    say(
      "/extensions/engine_command_line/provenance",
      "/declared/engine_args",
      `is ${show(args)}, but results.json says the engine command line was declared with --engine-args`,
    );
  }
  // A declared command line is used whenever none is read from a profile or the process: never is there none.
  if (given && provenance === undefined) {
    say(
      "/extensions/engine_command_line",
      "/declared/engine_args",
      "holds a command line, but results.json records none (a declared one would have been used)",
    );
  }
}

/** The example request's settings are the sampling, template arguments and budget the result records. */
function checkExample(
  config: Record<string, Json>,
  result: Json,
  say: (pointer: string, where: string, message: string) => void,
): void {
  const example = config["request_settings_example"];
  if (example === null || example === undefined) return;
  if (!isObject(example)) return say("/artifacts", "/request_settings_example", "is not an object");
  const sampling = at(result, ["configuration", "sampling"]);
  const pairs: [string, Json, string][] = isObject(sampling)
    ? Object.entries(sampling).map(([k, v]) => [k, v, `/configuration/sampling/${k}`])
    : [];
  pairs.push([
    "chat_template_kwargs",
    at(result, ["configuration", "chat_template_kwargs"]),
    "/configuration/chat_template_kwargs",
  ]);
  pairs.push([
    "reasoning_budget_tokens",
    at(result, ["extensions", "reasoning_budget_tokens_sent"]) ?? undefined,
    "/extensions/reasoning_budget_tokens_sent",
  ]);
  for (const [key, recorded, pointer] of pairs) {
    if (recorded === undefined || recorded === null) continue;
    if (!agrees(example[key], recorded)) {
      say(
        pointer,
        `/request_settings_example/${key}`,
        `is ${show(example[key])}, but results.json records ${show(recorded)}`,
      );
    }
  }
}
