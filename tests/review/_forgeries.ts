/**
 * The red-team corpus: forgeries made programmatically from one genuine result folder of the scripted engine (a
 * run that looks exactly like llama-server, identity complete, status complete), each the kind of change a
 * submitter could try to get past review: status, identity, simulation, resolved settings, stated values, rates
 * and counts changed consistently with the hashes updated, extra files, weights, replaced entries, mixed protocols.
 * Every forgery re-hashes what it touched, so only the judges' reading of the evidence can catch it.
 */
import { join } from "node:path";
import { measuredDigest } from "../../report/measured.ts";
import { copyFolder, type Editable } from "../site/_fixture_repo.ts";

/** One forgery: its kind, its name, how it is made from a copy of the genuine folder, and the reason expected. */
export interface Forgery {
  kind: string;
  name: string;
  make(folder: string): Promise<void>;
  reason: RegExp;
  /**
   * Only the review catches it, not the reader's browser: the browser's check has no sanitizer of its own, so a
   * private string put back by hand is refused by approved add and site build, never shown by a site they built.
   */
  reviewOnly?: true;
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function editResults(folder: string, edit: (r: Editable) => void): Promise<void> {
  const path = join(folder, "results.json");
  const result: Editable = JSON.parse(await Deno.readTextFile(path));
  edit(result);
  await Deno.writeTextFile(path, `${JSON.stringify(result, null, 2)}\n`);
}

/** Rewrites one artifact's bytes and records the new hash in results.json (a consistent re-hash). */
async function rewriteArtifact(folder: string, name: string, change: (text: string) => string): Promise<void> {
  const path = join(folder, name);
  await Deno.writeTextFile(path, change(await Deno.readTextFile(path)));
  const sha = await sha256(await Deno.readFile(path));
  await editResults(folder, (r) => {
    for (const a of r.artifacts) if (a.path === name) a.sha256 = sha;
  });
}

/** Edits outputs.jsonl line by line (parsed), then re-hashes it. */
function editLines(folder: string, edit: (line: Editable) => void): Promise<void> {
  return rewriteArtifact(folder, "outputs.jsonl", (text) =>
    text.split("\n").map((l) => {
      if (l.trim() === "") return l;
      const line: Editable = JSON.parse(l);
      edit(line);
      return JSON.stringify(line);
    }).join("\n"));
}

/** Adds a file to the folder and, when `listed`, to results.json's artifacts with its hash. */
async function addFile(folder: string, name: string, bytes: Uint8Array, listed: boolean): Promise<void> {
  await Deno.mkdir(join(folder, name, ".."), { recursive: true });
  await Deno.writeFile(join(folder, name), bytes);
  if (!listed) return;
  const sha = await sha256(bytes);
  await editResults(folder, (r) => r.artifacts.push({ kind: "provenance", path: name, sha256: sha }));
}

const GGUF = new Uint8Array([0x47, 0x47, 0x55, 0x46, 3, 0, 0, 0, 0, 0, 0, 0]);
function safetensors(): Uint8Array {
  const header = new TextEncoder().encode('{"w":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}}');
  const bytes = new Uint8Array(8 + header.length + 2);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(header.length), true);
  bytes.set(header, 8);
  return bytes;
}

/**
 * A forger's consistent edit: outputs.jsonl lines and results.json changed together, outputs.jsonl re-hashed and
 * the measured digest recomputed with the toolkit's own function, so no hash or digest tells.
 */
async function consistently(
  folder: string,
  edit: { line?: (line: Editable) => void; result?: (r: Editable) => void },
): Promise<void> {
  if (edit.line !== undefined) await editLines(folder, edit.line);
  await editResults(folder, (r) => edit.result?.(r));
  const path = join(folder, "results.json");
  const result: Editable = JSON.parse(await Deno.readTextFile(path));
  const outputs = await Deno.readTextFile(join(folder, "outputs.jsonl"));
  result.extensions.measured_digest = measuredDigest(result, "outputs.jsonl", outputs);
  await Deno.writeTextFile(path, `${JSON.stringify(result, null, 2)}\n`);
}

const status = (value: string) => (r: Editable) => (r.run.status = value);

/** The corpus; `DRAFT` and `OTHER` are protocol ids the genuine result is not. */
export function forgeries(ids: { activated: string; unknown: string }): Forgery[] {
  const list: Forgery[] = [];
  const add = (kind: string, name: string, make: Forgery["make"], reason: RegExp) =>
    list.push({ kind, name, make, reason });
  const nonconformingThen = (edit: (r: Editable) => void) => async (f: string) =>
    await editResults(f, (r) => {
      edit(r);
      r.run.status = "complete";
    });

  // Status: a better status than the evidence gives.
  add("status", "partial-claimed-nonconforming", (f) => editResults(f, status("partial")), /status|measured/);
  add("status", "status-unknown-word", (f) => editResults(f, status("approved")), /status/);
  add("status", "skipped-request-but-complete", async (f) => {
    await editLines(f, (l) => {
      if (l.request_id === "sanity-T4") {
        for (const k of Object.keys(l)) if (k !== "evidence_version" && k !== "request_id") delete l[k];
        l.skip_reason = "skipped by hand";
      }
    });
  }, /sanity-T4/);
  add(
    "status",
    "reasons-listed-but-complete",
    nonconformingThen((r) => {
      r.extensions.nonconforming_reasons = ["the server refused a setting"];
    }),
    /nonconforming|measured/,
  );
  add("status", "cancelled-but-complete", async (f) => {
    await editLines(f, (l) => {
      if (l.request_id === "sanity-R4") l.error = { kind: "cancelled", message: "interrupted" };
    });
  }, /sanity-R4|cancelled/);

  // Identity: missing engine commit, model file hash, template, corpus, runner commit.
  const identity = (name: string, edit: (r: Editable) => void, reason: RegExp) =>
    add("identity", name, (f) => editResults(f, edit), reason);
  identity("engine-commit-null", (r) => {
    r.software.strata_commit = null;
    r.missing["/software/strata_commit"] = "not known";
  }, /engine commit/);
  identity("engine-commit-short", (r) => (r.software.strata_commit = "80fb11a"), /strata_commit/);
  identity("runner-commit-null", (r) => {
    r.software.runner_commit = null;
    r.missing["/software/runner_commit"] = "not known";
  }, /runner commit|runner_commit/);
  identity("model-sha-null", (r) => {
    r.model.files[0].sha256 = null;
    r.missing["/model/files/0/sha256"] = "not hashed";
  }, /SHA-256|sha256/);
  identity("model-files-empty", (r) => (r.model.files = []), /model/);
  identity("template-null", (r) => {
    r.configuration.template = null;
    r.missing["/configuration/template"] = "unknown";
  }, /template/);
  identity("corpus-changed", (r) => (r.protocol.corpus_sha256 = "0".repeat(64)), /corpus/);
  identity("model-sha-other", (r) => (r.model.files[0].sha256 = "a".repeat(64)), /model|measured/);

  // Simulated: any file of the folder saying it.
  add(
    "simulated",
    "config-json-simulated",
    (f) => rewriteArtifact(f, "config.json", (t) => t.replace('"simulated": false', '"simulated": true')),
    /simulated/,
  );
  add(
    "simulated",
    "extension-simulated",
    (f) => editResults(f, (r) => (r.extensions.simulated_engine = true)),
    /simulated/,
  );
  add("simulated", "simulated-and-labelled-nonconforming", async (f) => {
    await rewriteArtifact(f, "config.json", (t) => t.replace('"simulated": false', '"simulated": true'));
    await editResults(f, status("nonconforming"));
  }, /simulation|simulated/);
  add(
    "simulated",
    "nested-simulated-flag",
    (f) =>
      rewriteArtifact(
        f,
        "config.json",
        (t) => t.replace('"declared": {', '"declared": {\n    "simulated_engine": true,'),
      ),
    /simulated/,
  );

  // config.json: its declared facts edited and only its hash updated (issue 45): every judge reads it against
  // results.json.
  const configEdit = (name: string, change: (t: string) => string, reason: RegExp) =>
    add("config", name, (f) => rewriteArtifact(f, "config.json", change), reason);
  configEdit(
    "config-model-id",
    (t) => t.replace(/"model_id": "[^"]*"/, '"model_id": "Qwen/Qwen3.8-Pro"'),
    /config\.json.*model_id/,
  );
  configEdit(
    "config-quantization",
    (t) => t.replace(/"quantization": "[^"]*"/, '"quantization": "Q8_0"'),
    /config\.json.*quantization/,
  );
  configEdit(
    "config-command",
    (t) => t.replace(/"command": "[^"]*"/, '"command": "strata-bench run --profile qwen-h200"'),
    /config\.json.*command/,
  );
  configEdit(
    "config-engine-args",
    (t) => t.replace('"engine_args": null', '"engine_args": "llama-server -m q.gguf --reasoning-budget 0"'),
    /config\.json.*engine_args/,
  );
  configEdit(
    "config-sampling-sent",
    (t) => t.replace(/"temperature": [0-9.]+/g, '"temperature": 0.6'),
    /config\.json.*temperature/,
  );

  // Resolved settings: the engine ran other settings than sent (the /slots reading).
  const slots = (name: string, field: string, value: number) =>
    add("resolved settings", name, (f) =>
      editLines(f, (l) => {
        if (l.request_id === "performance-short-r1" && l.slot_reading?.params) l.slot_reading.params[field] = value;
      }), new RegExp(`performance-short-r1|${field}`));
  slots("slots-temperature-0.3", "temperature", 0.3);
  slots("slots-top-k-40", "top_k", 40);
  slots("slots-seed-99", "seed", 99);
  slots("slots-n-predict-64", "n_predict", 64);
  add("resolved settings", "sent-temperature-0", (f) =>
    editLines(f, (l) => {
      if (l.request_id === "performance-prompt-4k-r1") l.request.temperature = 0;
    }), /performance-prompt-4k-r1|temperature/);
  add(
    "resolved settings",
    "configured-top-p",
    (f) => editResults(f, (r) => (r.configuration.sampling.top_p = 0.8)),
    /top_p/,
  );

  // Stated values: record_overrides taken on faith.
  add("stated values", "override-passed", (f) =>
    editResults(f, (r) => {
      const i = r.requests.findIndex((q: Editable) => q.id === "sanity-I1");
      r.extensions.record_overrides = { "sanity-I1": { "/evaluation/passed": false } };
      r.requests[i].evaluation.passed = false;
    }), /sanity-I1|record_overrides|stated|measured/);
  add(
    "stated values",
    "override-unlisted-request",
    (f) => editResults(f, (r) => (r.extensions.record_overrides = { "sanity-X9": { "/evaluation/passed": true } })),
    /sanity-X9|record_overrides|measured/,
  );
  add(
    "stated values",
    "override-proto-pointer",
    (f) => editResults(f, (r) => (r.extensions.record_overrides = { "sanity-I1": { "/__proto__/passed": true } })),
    /record_overrides|__proto__|measured/,
  );

  const lineOverride = (name: string, answer: string, stated: unknown, reason: RegExp) =>
    add("stated values", name, async (f) => {
      await editLines(f, (l) => {
        if (l.request_id !== "sanity-I1") return;
        l.final_answer = answer;
        l.record_overrides = { "/evaluation/passed": stated };
      });
      await editResults(f, (r) => (r.extensions.record_overrides = { "sanity-I1": ["/evaluation/passed"] }));
    }, reason);
  lineOverride("line-override-no-placeholder", "a wrong answer", true, /no redaction placeholder/);
  lineOverride("line-override-by-hand-mark", "[redacted by hand]", true, /no redaction placeholder/);
  lineOverride("line-override-not-a-verdict", "the <host> answer", "yes", /no value of that field/);
  // A wrong answer holding a placeholder where the check cannot read the expected value into it (the forgery),
  // and one holding it outside the JSON the check reads.
  lineOverride("line-override-placeholder-cannot-pass", '{"ok":true,"count":"<host>"}', true, /could have produced it/);
  lineOverride("line-override-placeholder-outside", '{"ok":true,"count":2} <host>', true, /could have produced it/);
  add("stated values", "line-override-count-elsewhere", async (f) => {
    await editLines(f, (l) => {
      if (l.request_id !== "performance-short-r1" || typeof l.usage_chunk !== "string") return;
      l.usage_chunk = l.usage_chunk.replace(/\}\s*$/, ',"note":"<host>"}');
      l.record_overrides = { "/tokens/output_tokens": 1 };
    });
    await editResults(f, (r) => {
      r.extensions.record_overrides = { "performance-short-r1": ["/tokens/output_tokens"] };
      r.requests.find((q: Editable) => q.id === "performance-short-r1").tokens.output_tokens = 1;
    });
  }, /could have produced it|output_tokens/);

  // Rates and counts changed consistently, hashes updated.
  add("rates and counts", "decode-tps-summary", (f) =>
    editResults(f, (r) => {
      for (const s of r.summaries) if (s.metric === "decode_tps" && s.median !== null) s.median *= 2;
    }), /decode_tps|summar|measured/);
  add("rates and counts", "record-decode-tps", (f) =>
    editResults(f, (r) => {
      const q = r.requests.find((x: Editable) => x.id === "performance-short-r2");
      q.metrics.decode_tps *= 3;
    }), /performance-short-r2|decode_tps|measured/);
  add("rates and counts", "outputs-usage-tokens", (f) =>
    editLines(f, (l) => {
      if (l.request_id === "performance-prompt-4k-r2" && typeof l.usage_chunk === "string") {
        l.usage_chunk = l.usage_chunk.replace(/"completion_tokens":(\d+)/, (_m: string, n: string) =>
          `"completion_tokens":${Number(n) + 100}`);
      }
    }), /performance-prompt-4k-r2|output|measured/);
  add(
    "rates and counts",
    "request-counts",
    (f) => editResults(f, (r) => (r.request_counts.performance.completed += 1)),
    /request_counts|count|measured/,
  );
  add("rates and counts", "quality-score", (f) => editResults(f, (r) => (r.quality.passed = 11)), /quality|measured/);
  add("rates and counts", "timings-prompt-ms", (f) =>
    editLines(f, (l) => {
      // The timings came in the usage chunk, which the line writes once (timings_in_usage_chunk).
      if (l.request_id === "performance-prompt-16k-r1" && typeof l.usage_chunk === "string") {
        l.usage_chunk = l.usage_chunk.replace(/"prompt_ms":([0-9.e+-]+)/, (_m: string, n: string) =>
          `"prompt_ms":${Number(n) / 4}`);
      }
    }), /performance-prompt-16k-r1|prompt|measured/);
  add("rates and counts", "wrong-answer-kept-pass", (f) =>
    editLines(f, (l) => {
      if (l.request_id === "sanity-I2") l.final_answer = "[9,2,1]";
    }), /sanity-I2/);
  add(
    "rates and counts",
    "duration",
    (f) => editResults(f, (r) => (r.run.required_duration_s *= 10)),
    /duration|measured/,
  );

  // Extra files and weights.
  const enc = new TextEncoder();
  add("extra files", "notes-txt", (f) => addFile(f, "notes.txt", enc.encode("hi"), false), /notes\.txt/);
  add("extra files", "subfolder", (f) => addFile(f, "more/notes.txt", enc.encode("hi"), false), /more/);
  add("extra files", "hidden-file", (f) => addFile(f, ".env", enc.encode("TOKEN=x"), false), /\.env/);
  add(
    "extra files",
    "second-json",
    (f) => addFile(f, "results-old.json", enc.encode("{}"), false),
    /results-old\.json/,
  );
  add(
    "weights",
    "gguf-by-name",
    (f) => addFile(f, "model.gguf", enc.encode("not really"), false),
    /model\.gguf.*weight|weight.*model\.gguf/,
  );
  add("weights", "gguf-magic-as-txt", (f) => addFile(f, "readme.txt", GGUF, false), /readme\.txt.*(weight|GGUF)/);
  add("weights", "safetensors-by-name", (f) => addFile(f, "w.safetensors", safetensors(), false), /w\.safetensors/);
  add(
    "weights",
    "safetensors-magic-as-dat",
    (f) => addFile(f, "blob.dat", safetensors(), false),
    /blob\.dat.*(weight|safetensors)/,
  );
  add(
    "weights",
    "gguf-listed-as-artifact",
    (f) => addFile(f, "model.gguf", GGUF, true),
    /model\.gguf.*weight|weight.*model\.gguf/,
  );
  add(
    "weights",
    "bin-listed-as-artifact",
    (f) => addFile(f, "pytorch_model.bin", enc.encode("x"), true),
    /pytorch_model\.bin/,
  );

  // What report rejects and approved add once accepted.
  add(
    "hand edits",
    "cpu-name",
    (f) => editResults(f, (r) => (r.hardware.cpu = "AMD Ryzen 9 9950X3D")),
    /hardware|measured/,
  );
  add("hand edits", "unknown-field-wrong-duration", (f) =>
    editResults(f, (r) => {
      r.run.wall_s = 1;
      r.run.required_duration_s += 1;
    }), /wall_s|duration|measured/);
  add(
    "hand edits",
    "picture-with-script",
    (f) => rewriteArtifact(f, "rates.svg", (t) => t.replace("</svg>", "<script>alert(1)</script></svg>")),
    /rates\.svg|picture/,
  );

  // Redaction: a private string put back by hand into a file no other judge reads for it (config.json's hash is
  // updated, as a careful forger would).
  const putBack = (text: string) => (t: string) => t.replace("{", `{"note": ${JSON.stringify(text)},`);
  add(
    "redaction",
    "home-path-put-back",
    (f) => rewriteArtifact(f, "config.json", putBack("model copied from /home/bob/models/q4.gguf")),
    /config\.json at \/note: the sanitizer would still redact/,
  );
  add(
    "redaction",
    "token-put-back",
    (f) => rewriteArtifact(f, "config.json", putBack("pulled with hf_AbCdEfGhIjKlMnOpQrStUvWx")),
    /config\.json at \/note: the sanitizer would still redact/,
  );
  for (const forgery of list) if (forgery.kind === "redaction") forgery.reviewOnly = true;

  // Plausibility: values every other rule re-derives, made impossible, the digest recomputed.
  const plausibility = (name: string, edit: Parameters<typeof consistently>[1], reason: RegExp) =>
    add("plausibility", name, (f) => consistently(f, edit), reason);
  const ONE = "performance-short-r1";
  plausibility("output-tokens-past-cap", {
    line: (l) => {
      if (l.request_id === ONE) {
        l.usage_chunk = l.usage_chunk.replace(/"completion_tokens":\d+/, '"completion_tokens":9000000000000000');
      }
    },
    result: (r) => (r.requests.find((q: Editable) => q.id === ONE).tokens.output_tokens = 9e15),
  }, /implausible.*output_tokens/);
  plausibility(
    "started-in-2099",
    { result: (r) => (r.run.started_at = "2099-01-01T00:00:00.000Z") },
    /implausible.*started_at/,
  );
  const YEARS_3 = 3 * 365 * 86_400_000;
  plausibility("dispatch-stamps-3-years-late", {
    line: (l) => {
      if (typeof l.dispatched_at_epoch_ms === "number") l.dispatched_at_epoch_ms += YEARS_3;
    },
  }, /implausible.*dispatch/);
  plausibility("negative-client-offset", {
    line: (l) => {
      if (l.request_id === ONE) l.client_offsets_s.headers_s = -0.25;
    },
  }, /implausible.*headers_s/);
  plausibility("power-1e29-watts", {
    result: (r) => {
      r.extensions.gpu_power.requests = [{ request_id: ONE, energy_j: 1e29, mean_power_w: 1e29, peak_power_w: 1e29 }];
    },
  }, /implausible.*(power|W)/);

  // Mixed protocols.
  add("mixed protocols", "activated-id", (f) => editResults(f, (r) => (r.protocol.id = ids.activated)), /protocol/);
  add("mixed protocols", "unknown-id", (f) => editResults(f, (r) => (r.protocol.id = ids.unknown)), /protocol/);
  add(
    "mixed protocols",
    "profile-changed",
    (f) => editResults(f, (r) => (r.protocol.profile = "other-profile")),
    /profile/,
  );
  add("mixed protocols", "schema-version-2", (f) => editResults(f, (r) => (r.schema_version = 2)), /schema_version/);
  return list;
}

/** A copy of `genuine` at `to` with the forgery applied. */
export async function forge(genuine: string, to: string, forgery: Forgery): Promise<void> {
  await copyFolder(genuine, to);
  await forgery.make(to);
}
