/**
 * What would make the next run conforming: one {problem, fix} per identity gap or setup problem of a result, each
 * fix the exact flag or step to take (`--model-id ORG/REPO`, `--engine-source DIR`, ...). Plain data: cli/ prints
 * it at the end of a nonconforming run.
 */
import type { Result } from "../contract/mod.ts";
import { shortEngineCommit } from "../probe/mod.ts";

/** One problem of the result and the flag or step that fixes it next time. */
export interface ConformingFix {
  problem: string;
  fix: string;
}

/** Flags that state what the engine cannot tell, by the pointer that is null without them. */
const DECLARED: readonly [pointer: string, problem: string, fix: string][] = [
  ["/model/id", "the model's repository id is not given", "--model-id ORG/REPO"],
  ["/model/revision", "the model repository's revision is not given", "--model-revision REV"],
  ["/model/source_revision", "the source model's revision is not given", "--source-revision REV"],
  ["/model/tokenizer_revision", "the tokenizer's revision is not given", "--tokenizer-revision REV"],
];

const CONFIGURATION = ["kv_cache", "expert_cache", "offloading", "prefill", "mtp", "calibration"] as const;

/**
 * The fixes a result needs, in the order a person would take them; empty for a conforming result.
 * Only what a flag or a setup step can fix is listed; a measurement problem (a failed request) is not.
 */
export function conformingFixes(result: Result): ConformingFix[] {
  if (result.run.status !== "nonconforming") return [];
  // A simulation cannot be made conforming by a flag: only a real server can.
  if (result.extensions?.["simulated_engine"] === true) {
    return [{
      problem: "the server is the scripted engine (a simulation)",
      fix: "start llama-server and run: strata-bench run --url http://127.0.0.1:8080 (docs/conforming-run.md)",
    }];
  }
  const missing = result.missing;
  const fixes: ConformingFix[] = [];
  for (const [pointer, problem, fix] of DECLARED) if (pointer in missing) fixes.push({ problem, fix });
  const facts = result.extensions?.model_file_facts ?? null;
  if ("/model/quantization" in missing) {
    fixes.push({
      problem: "the quantization is not given",
      fix: `--quantization ${facts?.file_type ?? "NAME"}${
        facts?.file_type ? " (the model file's general.file_type)" : ""
      }`,
    });
  }
  for (const warning of facts?.warnings ?? []) {
    if (/^--quantization/.test(warning)) fixes.push({ problem: warning, fix: `--quantization ${facts?.file_type}` });
    if (/^--model-id/.test(warning)) fixes.push({ problem: warning, fix: "--model-id naming the file's model" });
  }
  if ("/software/strata_commit" in missing) {
    const short = shortEngineCommit(result.software.engine_version);
    fixes.push({
      problem: `the engine's full commit is unknown (the server reports ${short ?? "none"})`,
      fix: short === null
        ? "--engine-commit SHA (the full 40-character commit of the server's source)"
        : `--engine-source DIR (a llama.cpp checkout holding ${short}), or --engine-commit $(git -C DIR rev-parse ${short})`,
    });
  }
  if (CONFIGURATION.some((name) => `/configuration/${name}` in missing)) {
    fixes.push({
      problem: "the engine's configuration is unknown (its process could not be read)",
      fix: '--engine-args "llama-server -m MODEL.gguf -c 32768 ..." (the server\'s exact command line), or run the ' +
        "server as this user on this machine's loopback so its process can be read",
    });
  }
  if ("/model/files" in missing) {
    fixes.push({
      problem: "the model files are unknown",
      fix: "--pack-dir DIR (the folder holding the model files the server loaded), readable by this user",
    });
  }
  if ("/configuration/template" in missing) {
    fixes.push({
      problem: "the chat template is unknown",
      fix: "run llama-server with --jinja (and without --no-props)",
    });
  }
  if ("/software/runner_commit" in missing) {
    fixes.push({ problem: "this toolkit's commit is unknown", fix: "run from a git checkout or a release build" });
  }
  const reasons = result.extensions?.["nonconforming_reasons"];
  const said = Array.isArray(reasons) ? reasons.filter((r): r is string => typeof r === "string") : [];
  if (said.some((r) => /not loopback|is not on loopback/.test(r))) {
    fixes.push({
      problem: "the server is not on loopback",
      fix: "--url http://127.0.0.1:PORT (the protocol measures over loopback)",
    });
  }
  if (said.some((r) => /more than 2% off|template/.test(r) && !/chat template unknown/.test(r))) {
    fixes.push({
      problem: "the server renders the prompts with another template or tokenizer than the bundle's",
      fix: "start llama-server with --jinja and the model's own template (check first: strata-bench probe --template)",
    });
  }
  if (said.some((r) => /unexpected cache reuse/.test(r))) {
    fixes.push({ problem: "user payloads came from the cache", fix: "restart the engine before the next run" });
  }
  return fixes;
}
