// @ts-check
/**
 * config.json beside results.json, checked in the reader's browser with the site's own code: the runner writes both
 * from the same options, so each fact config.json states must be the one results.json records (docs/results.md,
 * "config.json"). Both are sanitized alike and a person may redact either, so a text holding a placeholder, or a
 * person's `<redacted>`, agrees with any text it can have been made from. A key the runner never writes, or one it
 * always writes and the file lacks, is a problem: the file may carry nothing the check does not read.
 */
import { isObject } from "./evidence.js";

/**
 * config.json's keys: where results.json records each (a path of keys), or "" for one results.json does not hold.
 * "declared" holds the operator's flags, each with its own place.
 * @type {Record<string, string>}
 */
const TOP = {
  command: "run.command",
  base_url: "",
  optional_concurrency: "run.optional_concurrency",
  track: "configuration.track",
  track_notes: "configuration.track_notes",
  declared: "",
  pack_dir: "",
  check_template: "",
  simulated: "extensions.simulated_engine",
  dialect: "extensions.dialect",
  dialect_evidence: "extensions.dialect_evidence",
  reasoning_budget_tokens_sent: "extensions.reasoning_budget_tokens_sent",
  reasoning_budget_why: "extensions.reasoning_budget_why",
  sampling: "configuration.sampling",
  chat_template_kwargs: "configuration.chat_template_kwargs",
  request_settings_example: "",
};

/** @type {Record<string, string>} */
const DECLARED = {
  model_id: "model.id",
  model_revision: "model.revision",
  source_revision: "model.source_revision",
  tokenizer_revision: "model.tokenizer_revision",
  quantization: "model.quantization",
  custom_pack: "model.custom_pack",
  background: "hardware.background_workloads",
  build_options: "software.build_options",
  engine_commit: "",
  engine_source: "",
  engine_args: "",
};

/** A placeholder the runner's sanitizer writes, or the mark a person writes by hand. */
const MARK = /<(?:home|abs-path|user|host|email|mac|gpu-uuid|machine-id|serial|private-ip-[0-9]+|secret|redacted)>/g;

/**
 * Whether `marked` (holding a mark) can have been made from `text`: its literal pieces in order, the first at the
 * start and the last at the end. Leftmost search is exact for "any text" holes and linear in the text.
 * @param {string} marked @param {string} text
 */
function madeFrom(marked, text) {
  const pieces = marked.split(MARK);
  if (pieces.length < 2) return false;
  const head = pieces[0] ?? "";
  const tail = pieces[pieces.length - 1] ?? "";
  if (!text.startsWith(head) || !text.endsWith(tail)) return false;
  let from = head.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = text.indexOf(piece, from);
    if (found === -1) return false;
    from = found + piece.length;
  }
  return from <= text.length - tail.length;
}

/** @param {unknown} a @param {unknown} b @returns {boolean} */
function same(a, b) {
  if (typeof a === "string" && typeof b === "string") return a === b || madeFrom(a, b) || madeFrom(b, a);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
  }
  return a === b;
}

/** @param {unknown} root @param {string} path */
function valueAt(root, path) {
  /** @type {unknown} */
  let at = root;
  for (const key of path.split(".")) {
    if (!isObject(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

/** @param {unknown} value */
function shown(value) {
  const text = value === undefined ? "absent" : JSON.stringify(value);
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}

/**
 * Problems of every config artifact against results.json; `checked` counts the facts compared.
 * @param {Record<string, unknown>} result
 * @param {{ kind: string, path: string }[]} list the artifacts whose hash matched
 * @param {{ path: string, json: unknown }[]} json those of them that are strict JSON, parsed
 * @returns {{ problems: string[], checked: number }}
 */
export function configProblems(result, list, json) {
  /** @type {string[]} */
  const problems = [];
  let checked = 0;
  for (const { path } of list.filter((a) => a.kind === "config")) {
    const config = json.find((j) => j.path === path)?.json;
    if (!isObject(config)) {
      problems.push(`${path} is not a strict JSON object, as the runner writes it`);
      continue;
    }
    /** @param {Record<string, unknown>} object @param {Record<string, string>} places @param {string} at */
    const compare = (object, places, at) => {
      for (const key of Object.keys(object)) {
        if (!Object.hasOwn(places, key)) problems.push(`${path} ${at}${key} is no key the runner writes`);
      }
      for (const [key, place] of Object.entries(places)) {
        if (!Object.hasOwn(object, key)) {
          problems.push(`${path} lacks ${at}${key}, which the runner always writes`);
        } else if (place !== "") {
          const stated = object[key] === "" ? null : object[key];
          const recorded = valueAt(result, place);
          checked++;
          if (!same(stated, recorded)) {
            problems.push(`${path} ${at}${key} is ${shown(stated)}, but results.json ${place} is ${shown(recorded)}`);
          }
        }
      }
    };
    compare(config, TOP, "");
    const declared = config.declared;
    if (!isObject(declared)) {
      problems.push(`${path} declared is not an object`);
      continue;
    }
    compare(declared, DECLARED, "declared.");
    const commit = declared.engine_commit;
    const recorded = valueAt(result, "software.strata_commit");
    if (typeof commit === "string" && commit !== "" && commit.toLowerCase() !== recorded) {
      problems.push(`${path} declared.engine_commit is ${shown(commit)}, but results.json records ${shown(recorded)}`);
    }
    const args = declared.engine_args;
    const given = typeof args === "string" && args !== "";
    const provenance = valueAt(result, "extensions.engine_command_line.provenance");
    if (provenance === "declared" && !given) {
      problems.push(`${path} declares no engine_args, but results.json says the engine's command line was declared`);
    }
    if (given && provenance === undefined) {
      problems.push(
        `${path} declares engine_args, but results.json records no engine command line, which it then would`,
      );
    }
    checked += exampleProblems(config.request_settings_example, result, path, problems);
  }
  return { problems, checked };
}

/**
 * The example request's sampling, template arguments and budget against those results.json records.
 * @param {unknown} example @param {Record<string, unknown>} result @param {string} path @param {string[]} problems
 */
function exampleProblems(example, result, path, problems) {
  if (example === null) return 0;
  if (!isObject(example)) {
    problems.push(`${path} request_settings_example is neither null nor an object`);
    return 0;
  }
  const sampling = valueAt(result, "configuration.sampling");
  /** @type {[string, unknown][]} */
  const expected = isObject(sampling) ? Object.entries(sampling) : [];
  expected.push(["chat_template_kwargs", valueAt(result, "configuration.chat_template_kwargs")]);
  expected.push(["reasoning_budget_tokens", valueAt(result, "extensions.reasoning_budget_tokens_sent")]);
  let checked = 0;
  for (const [key, recorded] of expected) {
    if (recorded === undefined || recorded === null) continue;
    checked++;
    if (!same(example[key], recorded)) {
      problems.push(
        `${path} request_settings_example.${key} is ${shown(example[key])}, but results.json records ${
          shown(recorded)
        }`,
      );
    }
  }
  return checked;
}
