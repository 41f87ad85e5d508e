/**
 * Engine profiles: JSONC files that say how to start an engine for `run --profile`. A profile names the engine
 * binary, its arguments, extra model files, the loopback host and port, extra environment variables and a
 * label. Strings may use placeholders, resolved when the profile is loaded:
 *
 * - `${cache}`: the toolkit's cache folder (`$XDG_CACHE_HOME/strata-bench`, else `~/.cache/strata-bench`)
 * - `${llama_server}`: the llama-server binary `deno task engine:build` provisions
 * - `${tiny_qwen3}`: the tiny model `deno task engine:model` writes
 * - `${profile_dir}`: the folder holding the profile file
 * - `${llama_cpp_commit}`: the full llama.cpp commit `deno task engine:build` builds
 * - `${env:NAME}`: an environment variable (an error when unset)
 *
 * `--host` and `--port` are added by the runner from `host` and `port`; the arguments must not set them. The text
 * is read as score's strict JSONC: a key given twice is refused (never last-wins) and nesting is bounded.
 */
import { isLoopbackHost } from "../client/mod.ts";
import { parseStrictJsonc } from "../score/mod.ts";

/** Deepest nesting a profile may have (it needs three levels). */
const PROFILE_MAX_DEPTH = 16;

/** A loaded, resolved profile. */
export interface EngineProfile {
  /** Name the profile was asked for (file stem or path as given). */
  name: string;
  label: string;
  /** Path of the engine binary. */
  engine: string;
  /** Engine arguments without --host/--port. */
  args: string[];
  /** Loopback host the engine binds (127.0.0.0/8, ::1 or localhost), IPv6 without brackets. */
  host: string;
  /** TCP port; 0 lets the engine choose one (read back from its log). */
  port: number;
  /** Extra environment variables for the engine. */
  env: Record<string, string>;
  /** Model files to hash besides the -m/--model files in `args`. */
  modelFiles: string[];
  /** Seconds to wait for /health to say ready after starting (default 300). */
  readyTimeoutS: number;
  /** Seconds between SIGTERM and SIGKILL when stopping (default 10). */
  stopGraceS: number;
  /**
   * The engine's full 40-hex commit, when the profile knows it (llama-server reports only a short one). Used as
   * the result's strata_commit unless --engine-commit is given. Null when the profile has none.
   */
  engineCommit: string | null;
}

/** Values the placeholders resolve to; a placeholder whose value is missing is an error when used. */
export interface ProfileContext {
  vars: Readonly<Record<string, string | undefined>>;
  env(name: string): string | undefined;
}

const KNOWN_KEYS = new Set([
  "label",
  "engine",
  "args",
  "host",
  "port",
  "env",
  "model_files",
  "ready_timeout_s",
  "stop_grace_s",
  "engine_commit",
  "$schema",
  "notes",
]);

/** Replaces `${...}` placeholders; collects a problem for each unknown or unset one. */
function resolve(text: string, where: string, context: ProfileContext, problems: string[]): string {
  return text.replace(/\$\{([^}]*)\}/g, (whole, key: string) => {
    if (key.startsWith("env:")) {
      const value = context.env(key.slice(4));
      if (value === undefined) problems.push(`${where}: environment variable ${key.slice(4)} is not set`);
      return value ?? whole;
    }
    if (!Object.hasOwn(context.vars, key)) {
      problems.push(
        `${where}: unknown placeholder \${${key}} (known: ${Object.keys(context.vars).join(", ")}, env:NAME)`,
      );
      return whole;
    }
    const value = context.vars[key];
    if (value === undefined) problems.push(`${where}: \${${key}} is not available here`);
    return value ?? whole;
  });
}

/**
 * Parses and resolves a profile's JSONC text. Every problem is collected and reported at once.
 * @throws {SyntaxError} when the text is not valid JSONC or a field is wrong (the message lists all problems).
 */
export function parseProfile(text: string, name: string, context: ProfileContext): EngineProfile {
  const { value, problems: unreadable } = parseStrictJsonc(text, PROFILE_MAX_DEPTH);
  if (unreadable.length > 0) {
    throw new SyntaxError(`Cannot read profile "${name}": not valid JSONC (${unreadable.join("; ")})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SyntaxError(`Cannot read profile "${name}": the top level must be an object`);
  }
  const raw = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(raw)) {
    if (!KNOWN_KEYS.has(key)) problems.push(`/${key}: unknown key (known: ${[...KNOWN_KEYS].join(", ")})`);
  }
  const { str, strings, seconds } = fieldReaders(raw, context, problems);
  const label = str("label");
  const engine = str("engine");
  const argv = strings("args");
  for (const [i, arg] of argv.entries()) {
    if (arg === "--host" || arg === "--port" || arg.startsWith("--host=") || arg.startsWith("--port=")) {
      problems.push(`/args/${i}: "${arg}" is not allowed; set the profile's "host" and "port" instead`);
    }
  }
  const hostText = str("host", "127.0.0.1");
  if (hostText !== "" && !isLoopbackHost(hostText)) {
    problems.push(
      `/host: "${hostText}" is not loopback; the protocol measures over loopback (127.0.0.0/8, ::1, localhost)`,
    );
  }
  // The engine's --host and profileBaseUrl take an IPv6 address without brackets.
  const host = /^\[.*\]$/.test(hostText) ? hostText.slice(1, -1) : hostText;
  const port = raw.port;
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65535) {
    problems.push("/port: must be an integer 0-65535 (0: the engine picks a free port)");
  }
  const envRaw = raw.env ?? {};
  const env: Record<string, string> = {};
  if (typeof envRaw !== "object" || envRaw === null || Array.isArray(envRaw)) problems.push("/env: must be an object");
  else {
    for (const [k, v] of Object.entries(envRaw)) {
      if (typeof v !== "string") problems.push(`/env/${k}: must be a string`);
      else env[k] = resolve(v, `/env/${k}`, context, problems);
    }
  }
  const modelFiles = strings("model_files");
  const readyTimeoutS = seconds("ready_timeout_s", 300);
  const stopGraceS = seconds("stop_grace_s", 10);
  let engineCommit: string | null = null;
  if (raw.engine_commit !== undefined) {
    const commit = typeof raw.engine_commit === "string"
      ? resolve(raw.engine_commit, "/engine_commit", context, problems)
      : "";
    if (/^[0-9a-f]{40}$/.test(commit)) engineCommit = commit;
    else problems.push("/engine_commit: must be the engine's full 40-character lowercase hex commit");
  }
  if (problems.length > 0) {
    throw new SyntaxError(`Cannot use profile "${name}":\n  ${problems.join("\n  ")}`);
  }
  return {
    name,
    label,
    engine,
    args: argv,
    host,
    port: port as number,
    env,
    modelFiles,
    readyTimeoutS,
    stopGraceS,
    engineCommit,
  };
}

/** Readers of a profile's string, string-list and seconds fields: each resolved, or a problem and a fallback. */
function fieldReaders(raw: Record<string, unknown>, context: ProfileContext, problems: string[]) {
  const str = (key: string, fallback?: string): string => {
    const v = raw[key];
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v !== "string" || v === "") {
      problems.push(`/${key}: must be a nonempty string`);
      return "";
    }
    return resolve(v, `/${key}`, context, problems);
  };
  const strings = (key: string): string[] => {
    const v = raw[key] ?? [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
      problems.push(`/${key}: must be an array of strings`);
      return [];
    }
    return (v as string[]).map((x, i) => resolve(x, `/${key}/${i}`, context, problems));
  };
  const seconds = (key: string, fallback: number): number => {
    const v = raw[key] ?? fallback;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
      problems.push(`/${key}: must be a positive number of seconds`);
      return fallback;
    }
    return v;
  };
  return { str, strings, seconds };
}

/** Base URL of the profile's server (`http://127.0.0.1:8080`, `http://[::1]:8080`) for a known port. */
export function profileBaseUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The engine's full argument list: the profile's arguments plus --host and --port. */
export function engineArgv(profile: EngineProfile): string[] {
  return [...profile.args, "--host", profile.host, "--port", String(profile.port)];
}
