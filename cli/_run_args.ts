/** Command line of `run`: strict parsing (unknown flags are errors) and the refusal of workload-changing flags. */
import { classifyServerUrl } from "../client/mod.ts";
import type { DeclaredProvenance } from "../runner/mod.ts";
import { declaredEngineArgs } from "../probe/mod.ts";
import { parseFlags, UsageError } from "./_args.ts";
import { errorMessage } from "../runtime/mod.ts";

/** Default server: llama-server's default address on loopback. */
export const DEFAULT_URL = "http://127.0.0.1:8080";

/** Flags the protocol forbids because they would change the workload. */
export const REFUSED_FLAGS = ["--concurrency", "--repeat", "--request-timeout"] as const;

/** Parsed `run` options. */
export interface RunArgs extends DeclaredProvenance {
  engineSource: string | null;
  engineCommandLine: string | null;
  url: string;
  profile: string | null;
  noStart: boolean;
  optionalConcurrency: boolean;
  track: "default" | "custom";
  trackNotes: string | null;
  out: string | null;
  simulated: boolean;
  /** --quiet: no progress on stderr (errors and warnings still). */
  quiet: boolean;
  /** --pack-dir: the folder model files are named relative to. */
  packDir: string | null;
  /** The template check before the warm-up (--no-check-template turns it off). */
  checkTemplate: boolean;
  /** --engine-log FILE: the server's log, attached and checked against the responses' timings. */
  engineLog: string | null;
}

/** The flags of `run`, as parseFlags reads them. */
const RUN_OPTIONS = {
  url: { type: "string" },
  profile: { type: "string" },
  "no-start": { type: "boolean" },
  "optional-concurrency": { type: "boolean" },
  track: { type: "string" },
  "track-notes": { type: "string" },
  "model-id": { type: "string" },
  "model-revision": { type: "string" },
  "source-revision": { type: "string" },
  "tokenizer-revision": { type: "string" },
  quantization: { type: "string" },
  "custom-pack": { type: "string" },
  background: { type: "string", multiple: true },
  "build-options": { type: "string", multiple: true },
  "engine-commit": { type: "string" },
  "engine-source": { type: "string" },
  "engine-args": { type: "string" },
  "pack-dir": { type: "string" },
  "check-template": { type: "boolean" },
  "no-check-template": { type: "boolean" },
  "engine-log": { type: "string" },
  out: { type: "string" },
  simulated: { type: "boolean" },
  quiet: { type: "boolean" },
} as const;

/**
 * Parses the arguments after `run`.
 * @throws {UsageError} on an unknown or refused flag, a missing value, or a bad value.
 */
export function parseRunArgs(argv: readonly string[]): RunArgs {
  for (const arg of argv) {
    if (arg === "--") break;
    const refused = REFUSED_FLAGS.find((flag) => arg === flag || arg.startsWith(`${flag}=`));
    if (refused) {
      throw new UsageError(
        `Cannot accept ${refused}: it would change the protocol's workload (fixed concurrency, one attempt per ` +
          "request, a 1,800 s request timeout), and the result would no longer be the standard benchmark",
      );
    }
  }
  const { values } = parseFlags("parse the run options", argv, RUN_OPTIONS);
  const track = values.track ?? "custom";
  if (track !== "default" && track !== "custom") {
    throw new UsageError(`Cannot use --track "${track}": it must be default or custom`);
  }
  const engineCommit = values["engine-commit"] ?? null;
  if (engineCommit !== null && !/^[0-9a-f]{40}$/i.test(engineCommit)) {
    throw new UsageError(`Cannot use --engine-commit "${engineCommit}": give the full 40-character commit`);
  }
  const text = (value: string | undefined, flag: string): string | null => {
    if (value === undefined) return null;
    if (value.trim() === "") throw new UsageError(`Cannot use an empty ${flag}: leave the flag out instead`);
    return value;
  };
  const engineCommandLine = text(values["engine-args"], "--engine-args");
  if (engineCommandLine !== null) {
    try {
      declaredEngineArgs(engineCommandLine);
    } catch (error) {
      throw new UsageError(`${errorMessage(error)} (--engine-args)`);
    }
  }
  if (values["check-template"] === true && values["no-check-template"] === true) {
    throw new UsageError("Cannot use --check-template with --no-check-template: choose one");
  }
  const url = values.url ?? DEFAULT_URL;
  checkUrlShape(url);
  if (values.profile !== undefined && values.url !== undefined) {
    throw new UsageError(
      "Cannot use --url with --profile: the profile names the engine and its port (edit the profile to change it)",
    );
  }
  if (values["no-start"] === true && values.profile === undefined) {
    throw new UsageError("Cannot use --no-start: it has no effect without --profile (a --url server is never started)");
  }
  return {
    url,
    profile: text(values.profile, "--profile"),
    noStart: values["no-start"] ?? false,
    optionalConcurrency: values["optional-concurrency"] ?? false,
    track,
    trackNotes: text(values["track-notes"], "--track-notes"),
    modelId: text(values["model-id"], "--model-id"),
    modelRevision: text(values["model-revision"], "--model-revision"),
    sourceRevision: text(values["source-revision"], "--source-revision"),
    tokenizerRevision: text(values["tokenizer-revision"], "--tokenizer-revision"),
    quantization: text(values.quantization, "--quantization"),
    customPack: text(values["custom-pack"], "--custom-pack"),
    background: (values.background ?? []).map((b) => text(b, "--background") ?? ""),
    buildOptions: values["build-options"] === undefined
      ? null
      : values["build-options"].map((b) => text(b, "--build-options") ?? ""),
    engineCommit: engineCommit === null ? null : engineCommit.toLowerCase(),
    engineSource: text(values["engine-source"], "--engine-source"),
    engineCommandLine,
    packDir: text(values["pack-dir"], "--pack-dir"),
    checkTemplate: values["no-check-template"] !== true,
    out: text(values.out, "--out"),
    simulated: values.simulated ?? false,
    quiet: values.quiet ?? false,
    engineLog: text(values["engine-log"], "--engine-log"),
  };
}

/**
 * A malformed --url (not a URL, not http(s), a port out of range) is a usage error, exit 2; a well-formed URL
 * where nothing answers is an environment failure found later (exit 3).
 */
function checkUrlShape(url: string): void {
  const port = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*:(\d+)(?:[/?#]|$)/.exec(url)?.[1];
  if (port !== undefined && Number(port) > 65535) {
    throw new UsageError(
      `Cannot use server URL "${url}": port ${port} is above 65535, the highest TCP port; pass e.g. --url ${DEFAULT_URL}`,
    );
  }
  try {
    classifyServerUrl(url);
  } catch (error) {
    const detail = errorMessage(error);
    throw new UsageError(
      `${detail.replace(/\.$/, "")}${/pass e\.g\./.test(detail) ? "" : `; pass e.g. --url ${DEFAULT_URL}`}`,
    );
  }
}
