// @ts-check
/// <reference lib="dom" />
/**
 * Everything a results.json records beyond what the recomputation carries, on the result page: provenance (the
 * protocol, the run, hardware with RAM, storage, power limits and background workloads, software with drivers and
 * runtime, the model files and their hashes), the configuration (the seven option objects, sampling, template and
 * chat-template arguments), the resolved-configuration verdicts, round queueing, and the limitations: every
 * missing value with its reason. Any further extension is shown as the JSON it is. A null value is shown with the
 * reason results.json gives for it, never as a blank.
 *
 * The values are the runner's record, shown as written (this page verified their file's hash, not their truth).
 */
import { h } from "./app_dom.js";
import { isObject, pointerTokens } from "./evidence.js";
import { factList, plainTable } from "./page_common.js";

/** @typedef {import("./app_dom.js").Child} Child */

/**
 * The value at a JSON Pointer (RFC 6901) of `root`, or undefined.
 * @param {unknown} root @param {string} pointer
 */
function at(root, pointer) {
  let value = root;
  for (const key of pointerTokens(pointer)) {
    if (Array.isArray(value)) value = value[Number(key)];
    else if (isObject(value) && Object.hasOwn(value, key)) value = value[key];
    else return undefined;
  }
  return value;
}

/** @param {unknown} value */
function jsonText(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * A field of the result at `pointer`: its value, or "null" with the reason results.json gives.
 * @param {Record<string, unknown>} result @param {string} pointer @param {(v: unknown) => Child} [format]
 * @returns {Child}
 */
function field(result, pointer, format = jsonText) {
  const value = at(result, pointer);
  if (value === null || value === undefined) {
    const missing = isObject(result.missing) ? result.missing : {};
    const reason = Object.hasOwn(missing, pointer) ? String(missing[pointer]) : null;
    return h(
      "span",
      { class: "missing" },
      value === undefined ? "absent" : "null",
      reason === null ? " (no reason given)" : `: ${reason}`,
    );
  }
  return format(value);
}

/** @param {unknown} bytes */
const gib = (bytes) =>
  typeof bytes === "number" ? `${(bytes / 1073741824).toFixed(1)} GiB (${bytes} bytes)` : jsonText(bytes);
/** @param {unknown} v */
const code = (v) => h("code", {}, jsonText(v));

/**
 * A table of an array of objects at `pointer`, one column per key; each cell a `field` (null with its reason).
 * @param {Record<string, unknown>} result @param {string} pointer @param {readonly string[]} keys @param {string} empty
 */
function arrayTable(result, pointer, keys, empty) {
  const list = at(result, pointer);
  if (!Array.isArray(list)) return field(result, pointer);
  if (list.length === 0) return h("span", { class: "muted" }, empty);
  return plainTable(
    ["#", ...keys],
    list.map((_, i) =>
      h("tr", {}, h("td", {}, i), keys.map((k) => h("td", {}, field(result, `${pointer}/${i}/${k}`, code))))
    ),
  );
}

/** @param {Record<string, unknown>} result @param {string} pointer */
function listText(result, pointer, empty = "none") {
  return field(
    result,
    pointer,
    (v) => Array.isArray(v) ? (v.length === 0 ? empty : v.map(jsonText).join(", ")) : code(v),
  );
}

/** @param {Record<string, unknown>} result */
function provenance(result) {
  const f = (/** @type {string} */ p, /** @type {(v: unknown) => Child} */ fmt = jsonText) => field(result, p, fmt);
  return [
    h("h2", { id: "provenance" }, "Provenance (as results.json records it)"),
    h("h3", {}, "Protocol and run"),
    factList([
      ["Protocol id", f("/protocol/id")],
      ["Protocol commit", f("/protocol/git_commit", code)],
      ["Profile", f("/protocol/profile")],
      ["Corpus SHA-256", f("/protocol/corpus_sha256", code)],
      ["Model card revision", f("/protocol/model_card_revision")],
      ["Run id", f("/run/id")],
      ["Started", f("/run/started_at")],
      ["Status", f("/run/status")],
      ["Required duration s", f("/run/required_duration_s")],
      ["Optional duration s", f("/run/optional_duration_s")],
      ["Optional concurrency", f("/run/optional_concurrency")],
      ["Command", f("/run/command", code)],
    ]),
    h("h3", {}, "Hardware"),
    arrayTable(
      result,
      "/hardware/gpus",
      ["device_index", "name", "memory_bytes", "memory_kind", "power_limit_w"],
      "no GPU",
    ),
    factList([
      ["CPU", f("/hardware/cpu")],
      ["RAM", f("/hardware/ram_bytes", gib)],
      ["Background workloads", listText(result, "/hardware/background_workloads", "none declared")],
    ]),
    h("h4", {}, "Storage"),
    arrayTable(result, "/hardware/storage", ["kind", "model", "bus"], "none"),
    h("h3", {}, "Software"),
    factList([
      ["OS", f("/software/os/name")],
      ["OS version", f("/software/os/version")],
      ["Engine version", f("/software/engine_version")],
      ["Engine (strata) commit", f("/software/strata_commit", code)],
      ["Build kind", f("/software/build_kind")],
      ["Build options", listText(result, "/software/build_options")],
      ["Runner commit", f("/software/runner_commit", code)],
    ]),
    h("h4", {}, "Drivers"),
    arrayTable(result, "/software/drivers", ["name", "version"], "none"),
    h("h4", {}, "Runtime"),
    arrayTable(result, "/software/runtime", ["name", "version"], "none"),
    h("h3", {}, "Model"),
    factList([
      ["Model id", f("/model/id")],
      ["Revision", f("/model/revision")],
      ["Source revision", f("/model/source_revision")],
      ["Quantization", f("/model/quantization")],
      ["Tokenizer revision", f("/model/tokenizer_revision")],
      ["Custom pack", f("/model/custom_pack", code)],
    ]),
    h("h4", {}, "Model files"),
    arrayTable(result, "/model/files", ["path", "sha256"], "no files"),
  ];
}

const OPTION_OBJECTS = [
  "kv_cache",
  "expert_cache",
  "offloading",
  "prefill",
  "mtp",
  "calibration",
  "experimental_options",
];

/** An object as a two-column table of its keys, or its reason when null. @param {Record<string, unknown>} result @param {string} pointer */
function objectTable(result, pointer) {
  const value = at(result, pointer);
  if (!isObject(value)) return field(result, pointer, code);
  const keys = Object.keys(value);
  if (keys.length === 0) return h("span", { class: "muted" }, "{} (no relevant options)");
  return plainTable(
    ["Option", "Value"],
    keys.map((k) => h("tr", {}, h("td", {}, k), h("td", {}, field(result, `${pointer}/${k}`, code)))),
  );
}

/** @param {Record<string, unknown>} result */
function configuration(result) {
  return [
    h("h2", { id: "configuration" }, "Configuration"),
    factList([
      ["Track", field(result, "/configuration/track")],
      ["Track notes", field(result, "/configuration/track_notes")],
      ["Context tokens", field(result, "/configuration/context_tokens")],
      ["Server capacity (slots)", field(result, "/configuration/server_capacity")],
      ["Template", field(result, "/configuration/template/path")],
      ["Template SHA-256", field(result, "/configuration/template/sha256", code)],
    ]),
    h("h3", {}, "Sampling"),
    objectTable(result, "/configuration/sampling"),
    h("h3", {}, "Chat template arguments"),
    objectTable(result, "/configuration/chat_template_kwargs"),
    h("h3", {}, "Engine option objects"),
    h(
      "dl",
      { class: "facts", id: "option-objects" },
      OPTION_OBJECTS.map((k) => [h("dt", {}, k), h("dd", {}, objectTable(result, `/configuration/${k}`))]),
    ),
  ];
}

/** The resolved-configuration verdicts (extensions.resolved_configuration). @param {Record<string, unknown>} result */
function resolved(result) {
  const rc = at(result, "/extensions/resolved_configuration");
  if (!isObject(rc)) {
    return [
      h("h2", { id: "resolved" }, "Resolved configuration"),
      h("p", { class: "missing" }, "results.json records none."),
    ];
  }
  const requests = isObject(rc.requests) ? rc.requests : {};
  const rows = Object.entries(requests).map(([id, v]) => {
    const r = isObject(v) ? v : {};
    const differing = Array.isArray(r.differing) ? r.differing.map(jsonText).join(", ") : "";
    const compared = Array.isArray(r.compared) ? r.compared.length : 0;
    return h(
      "tr",
      { class: r.verified === true ? undefined : "differs" },
      h("td", {}, id),
      h("td", {}, r.verified === true ? "as sent" : r.verified === false ? "NOT as sent" : "not verified"),
      h("td", { class: "num" }, compared),
      h("td", {}, differing || "none"),
      h("td", {}, r.reason === null || r.reason === undefined ? "" : jsonText(r.reason)),
    );
  });
  return [
    h("h2", { id: "resolved" }, "Resolved configuration: did the engine run each request as sent"),
    factList([
      ["Source", jsonText(rc.source)],
      ["Requests verified as sent", jsonText(rc.verified)],
      ["Requests differing", jsonText(rc.differing)],
      ["Requests not verified", jsonText(rc.not_verified)],
    ]),
    h(
      "details",
      {},
      h("summary", {}, `Per request (${rows.length})`),
      plainTable(["Request", "Verdict", "Fields compared", "Differing fields", "Reason"], rows, {
        id: "resolved-requests",
      }),
    ),
  ];
}

/** Round queueing (extensions.round_queueing). @param {Record<string, unknown>} result */
function queueing(result) {
  const rounds = at(result, "/extensions/round_queueing");
  if (!Array.isArray(rounds)) return null;
  return [
    h("h2", { id: "queueing" }, "Queueing in the concurrency rounds"),
    rounds.length === 0 ? h("p", { class: "muted" }, "No concurrency round ran.") : plainTable(
      ["Round", "Slots", "Requests that waited", "Longest wait s", "Why"],
      rounds.map((r) => {
        const o = isObject(r) ? r : {};
        const waits = Array.isArray(o.requests) ? o.requests.map((q) => isObject(q) ? Number(q.wait_s) : NaN) : [];
        const longest = waits.filter(Number.isFinite);
        return h(
          "tr",
          {},
          h("td", {}, jsonText(o.round)),
          h("td", { class: "num" }, jsonText(o.capacity)),
          h("td", { class: "num" }, jsonText(o.waited)),
          h("td", { class: "num" }, longest.length === 0 ? "not measured" : Math.max(...longest).toFixed(3)),
          h("td", {}, jsonText(o.reason)),
        );
      }),
      { id: "queueing-rounds" },
    ),
  ];
}

/** Every missing value with its reason, and the run's own status reasons. @param {Record<string, unknown>} result */
function limitations(result) {
  const missing = isObject(result.missing) ? Object.entries(result.missing) : [];
  return [
    h("h2", { id: "limitations" }, "Limitations: every missing value and why"),
    factList([
      ["Status reasons", listText(result, "/extensions/status_reasons")],
      ["Nonconforming reasons", listText(result, "/extensions/nonconforming_reasons")],
    ]),
    missing.length === 0 ? h("p", {}, "results.json has no missing value.") : plainTable(
      ["Value (JSON Pointer)", "Why it is missing"],
      missing.map(([pointer, reason]) =>
        h("tr", {}, h("td", {}, h("code", {}, pointer)), h("td", {}, jsonText(reason)))
      ),
      { id: "missing" },
    ),
    exclusions(result),
    requestRecords(result),
  ];
}

/** @param {unknown} v @param {number} digits */
const fixed = (v, digits) => typeof v === "number" ? v.toFixed(digits) : v === null ? "null" : jsonText(v);

/** Every request record, as results.json states it (the page's own recomputation is in the sections above). @param {Record<string, unknown>} result */
function requestRecords(result) {
  const requests = Array.isArray(result.requests) ? result.requests : [];
  const rows = requests.map((record, i) => {
    const r = isObject(record) ? record : {};
    const f = (/** @type {string} */ p, digits = 3) => field(result, `/requests/${i}/${p}`, (v) => fixed(v, digits));
    return h(
      "tr",
      {},
      h("td", {}, jsonText(r.id)),
      h("td", {}, f("status")),
      h("td", {}, f("finish_reason")),
      ["input_tokens", "cached_tokens", "output_tokens", "decode_tokens"].map((k) =>
        h("td", { class: "num" }, f(`tokens/${k}`, 0))
      ),
      ["ttft_s", "total_s"].map((k) => h("td", { class: "num" }, f(`timings/${k}`))),
      ["prompt_tps", "decode_tps"].map((k) => h("td", { class: "num" }, f(`metrics/${k}`, 1))),
      h("td", {}, f("first_delta_kind")),
      h("td", {}, r.token_accounting_note === null ? "" : jsonText(r.token_accounting_note)),
    );
  });
  const head = ["Request", "Status", "Finish", "Input", "Cached", "Output", "Decode tok", "TTFT s", "Total s"];
  return h(
    "details",
    {},
    h("summary", {}, `Every request record as results.json states it (${rows.length})`),
    plainTable([...head, "Prompt tok/s", "Decode tok/s", "First delta", "Accounting note"], rows, {
      id: "request-records",
    }),
  );
}

/** The requests each summary left out, with why. @param {Record<string, unknown>} result */
function exclusions(result) {
  const summaries = Array.isArray(result.summaries) ? result.summaries : [];
  const items = summaries.flatMap((summary) => {
    const s = isObject(summary) ? summary : {};
    const excluded = Array.isArray(s.excluded) ? s.excluded : [];
    return excluded.map((e) => {
      const x = isObject(e) ? e : {};
      return h(
        "li",
        {},
        `${jsonText(s.phase)} ${jsonText(s.case_id)} ${jsonText(s.metric)}: `,
        h("code", {}, jsonText(x.request_id)),
        ` ${jsonText(x.reason)}`,
      );
    });
  });
  return [
    h("h3", {}, `Requests left out of a summary (${items.length})`),
    items.length === 0
      ? h("p", {}, "None.")
      : h("details", {}, h("summary", {}, "Each with its reason"), h("ul", { id: "exclusions" }, items)),
  ];
}

/** Extensions shown above; every other one is shown as its JSON. */
const SHOWN_EXTENSIONS = ["resolved_configuration", "round_queueing", "status_reasons", "nonconforming_reasons"];

/** @param {Record<string, unknown>} result */
function otherExtensions(result) {
  const extensions = isObject(result.extensions) ? result.extensions : {};
  const rest = Object.entries(extensions).filter(([k]) => !SHOWN_EXTENSIONS.includes(k));
  if (rest.length === 0) return null;
  return [
    h("h2", { id: "extensions" }, "Further facts the run recorded (extensions)"),
    h(
      "dl",
      { class: "facts extensions" },
      rest.map(([k, v]) => [
        h("dt", {}, k),
        h(
          "dd",
          {},
          typeof v === "object" && v !== null
            ? h(
              "details",
              {},
              h("summary", {}, Array.isArray(v) ? `${v.length} item(s)` : "object"),
              h("pre", {}, JSON.stringify(v, null, 1)),
            )
            : jsonText(v),
        ),
      ]),
    ),
  ];
}

/**
 * The sections for everything results.json records; a note when it could not be read again.
 * @param {Record<string, unknown> | null} result
 */
export function recordSections(result) {
  if (result === null) {
    return h("p", { class: "problem" }, "results.json could not be read again here; its full record is not shown.");
  }
  return [
    provenance(result),
    configuration(result),
    resolved(result),
    queueing(result),
    limitations(result),
    otherExtensions(result),
  ];
}
