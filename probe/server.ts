/** Facts a running server reports about itself: /props, /v1/status, /slots, /metrics. */
import { type Dialect, sha256Hex } from "../contract/mod.ts";
import { concatBytes } from "../runtime/mod.ts";
import type { MissingMap } from "./_deps.ts";
import { parsePrometheusText } from "./_prometheus.ts";

/** Which server family answered, judged from what it exposes. */

/** How many requests the server had answered before this run. */
export interface PriorRequests {
  /** Exact count when known (0 for a server whose counters are all zero), else null. */
  served: number | null;
  /** A lower bound that the evidence proves (0 when nothing is known). */
  atLeast: number;
  /** Whether the server is freshly loaded (nothing served), null when unknown. */
  freshlyLoaded: boolean | null;
  /** The readings the verdict rests on, e.g. "llamacpp:tokens_predicted_total 4608". */
  evidence: string[];
  /** Why `served` is null; null when it is known. */
  reason: string | null;
}

/** What probeServer learned. `modelPath` is a machine path: use it to find files, never publish it. */
export interface ServerFacts {
  baseUrl: string;
  dialect: Dialect;
  dialectEvidence: string;
  engineVersion: string | null;
  /** Full 40-hex engine commit when the server reports one. */
  engineCommit: string | null;
  modelPath: string | null;
  modelAlias: string | null;
  contextTokens: number | null;
  serverCapacity: number | null;
  chatTemplate: { text: string; sha256: string } | null;
  /** default_generation_settings.params of /props, as the server sent it. */
  defaultGenerationParams: Record<string, unknown> | null;
  priorRequests: PriorRequests;
  /** Raw bodies, for the provenance artifact (sanitize before writing). */
  props: Record<string, unknown> | null;
  status: Record<string, unknown> | null;
  slots: unknown[] | null;
  metrics: Record<string, number> | null;
  /** Absolute contract pointers (/software/engine_version, /configuration/context_tokens, ...) -> reason. */
  missing: MissingMap;
  /** Endpoint ("/props", ...) -> why it gave nothing. */
  endpointProblems: Record<string, string>;
}

/** Options of probeServer. */
export interface ProbeServerDeps {
  fetch: typeof fetch;
  /** Per-endpoint deadline in milliseconds (default 10,000). */
  timeoutMs?: number;
  /** Ends every call at once (Ctrl-C, SIGTERM): the call answers as cancelled. */
  signal?: AbortSignal;
}

export type Fetched = { ok: true; body: string } | { ok: false; status: number | null; reason: string };

/**
 * Most bytes read of each endpoint's answer. A real llama-server answers /props in tens of KiB (the chat template
 * is most of it), /slots in a few KiB per slot and /metrics in a few KiB; past its cap an answer is not read
 * further and its facts are null with the reason, so a hostile server cannot make the probe hold gigabytes.
 */
export const ENDPOINT_MAX_BYTES: Readonly<Record<string, number>> = {
  "/props": 16 * 1024 * 1024,
  "/v1/status": 1024 * 1024,
  "/slots": 4 * 1024 * 1024,
  "/metrics": 4 * 1024 * 1024,
};

/** Largest chat template copied into the result folder; a longer one is recorded by its SHA-256 and size only. */
export const TEMPLATE_MAX_BYTES = 1024 * 1024;

/** The body of a response, read up to `maxBytes`; null when it is longer (the rest is not read). */
async function cappedText(response: Response, maxBytes: number): Promise<string | null> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return null;
      }
      parts.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return new TextDecoder().decode(concatBytes(parts));
}

/**
 * GET one endpoint (or POST `jsonBody` to it) within the deadline (headers and body together) and the endpoint's
 * size cap (`maxBytes`, else ENDPOINT_MAX_BYTES, else 1 MiB). Never throws.
 */
export async function fetchEndpoint(
  deps: ProbeServerDeps,
  baseUrl: string,
  path: string,
  options: { jsonBody?: unknown; maxBytes?: number } = {},
): Promise<Fetched> {
  const url = new URL(path.replace(/^\//, ""), baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? ENDPOINT_MAX_BYTES[path] ?? 1024 * 1024;
  const method = options.jsonBody === undefined ? "GET" : "POST";
  const timeout = AbortSignal.timeout(timeoutMs);
  const init: RequestInit = { signal: deps.signal === undefined ? timeout : AbortSignal.any([timeout, deps.signal]) };
  if (options.jsonBody !== undefined) {
    Object.assign(init, {
      method,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(options.jsonBody),
    });
  }
  try {
    const response = await deps.fetch(url, init);
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: false, status: response.status, reason: `${method} ${path} answered HTTP ${response.status}` };
    }
    const body = await cappedText(response, maxBytes);
    if (body === null) {
      return {
        ok: false,
        status: response.status,
        reason: `${method} ${path} answered more than ${maxBytes} bytes; not read`,
      };
    }
    return { ok: true, body };
  } catch (error) {
    if (deps.signal?.aborted) return { ok: false, status: null, reason: `${method} ${path} was cancelled` };
    const timedOut = (error as { name?: unknown } | null)?.name === "TimeoutError";
    if (timedOut) return { ok: false, status: null, reason: `${method} ${path} did not answer within ${timeoutMs} ms` };
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { ok: false, status: null, reason: `${method} ${path} failed (${message.split("\n")[0]?.slice(0, 160)})` };
  }
}

/** What one GET /slots gave: the slots array, or why not (with the HTTP status when the server answered). */
export type SlotsAnswer = { ok: true; slots: unknown[] } | { ok: false; reason: string; status: number | null };

/**
 * Reads GET /slots once (llama.cpp: every slot with its last task's id and params). Never throws; a refusal
 * names its cause (llama-server started with --no-slots answers 501).
 */
export async function readSlots(baseUrl: string, deps: ProbeServerDeps): Promise<SlotsAnswer> {
  const reply = await fetchEndpoint(deps, baseUrl, "/slots");
  if (!reply.ok) {
    const hint = reply.status === 501 ? " (llama-server started with --no-slots)" : "";
    return { ok: false, reason: `${reply.reason}${hint}`, status: reply.status };
  }
  const slots = asArray(reply.body);
  return slots === null ? { ok: false, reason: SLOTS_NOT_ARRAY, status: 200 } : { ok: true, slots };
}

const SLOTS_NOT_ARRAY = "GET /slots answered something that is not a JSON array";

function asArray(text: string): unknown[] | null {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** The JSON object `text` holds, or null when it is not JSON or not an object. */
export function asObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

function positiveInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : null;
}

/** llama.cpp spells its build as b<build number>-<commit>, e.g. "b6890-80fb11a". */
const LLAMA_CPP_BUILD = /^b\d+-[0-9a-f]{7,40}$/i;
const FULL_COMMIT = /(?:^|[^0-9a-f])([0-9a-f]{40})(?:$|[^0-9a-f])/i;

/** The full engine commit inside a build string, or null (llama.cpp's build_info carries only a short one). */
export function engineCommitFromBuildInfo(buildInfo: string): string | null {
  return FULL_COMMIT.exec(buildInfo)?.[1]?.toLowerCase() ?? null;
}

/** The engine family from /props and /v1/status (either null when it did not answer a JSON object), and why. */
function dialectFrom(
  props: Record<string, unknown> | null,
  status: Record<string, unknown> | null,
): { dialect: Dialect; evidence: string } {
  const buildInfo = typeof props?.build_info === "string" ? props.build_info : null;
  if (status) return { dialect: "strata", evidence: "GET /v1/status answered a JSON object" };
  if (buildInfo !== null && LLAMA_CPP_BUILD.test(buildInfo)) {
    return {
      dialect: "llama.cpp",
      evidence: `/props build_info "${buildInfo}" has llama.cpp's b<build>-<commit> form`,
    };
  }
  return { dialect: "unknown", evidence: "neither /v1/status nor a llama.cpp build_info in /props" };
}

/** Which engine family a server is (two GETs: /props and /v1/status), and why; never throws. */
export async function probeDialect(
  baseUrl: string,
  deps: ProbeServerDeps,
): Promise<{ dialect: Dialect; evidence: string }> {
  const [props, status] = await Promise.all(
    ["/props", "/v1/status"].map(async (path) => {
      const reply = await fetchEndpoint(deps, baseUrl, path);
      return reply.ok ? asObject(reply.body) : null;
    }),
  );
  return dialectFrom(props ?? null, status ?? null);
}

/**
 * Reads what a server says about itself. Never throws: an endpoint that is missing or fails leaves its facts
 * null with a reason in `missing` (contract pointers) and `endpointProblems`.
 */
export async function probeServer(baseUrl: string, deps: ProbeServerDeps): Promise<ServerFacts> {
  const { props, status, slots, metrics, endpointProblems } = await readEndpoints(deps, baseUrl);
  const missing: MissingMap = {};

  const buildInfo = typeof props?.build_info === "string" ? props.build_info : null;
  const { dialect, evidence: dialectEvidence } = dialectFrom(props, status);

  const statusVersion = typeof status?.version === "string" && status.version !== "" ? status.version : null;
  const engineVersion = buildInfo || statusVersion;
  if (!engineVersion) {
    missing["/software/engine_version"] = props
      ? "the server reports no build_info in /props and no version in /v1/status"
      : `no version: ${endpointProblems["/props"]}`;
  }
  const statusCommit = typeof status?.commit === "string" ? engineCommitFromBuildInfo(status.commit) : null;
  const engineCommit = (buildInfo ? engineCommitFromBuildInfo(buildInfo) : null) ?? statusCommit;
  if (!engineCommit) {
    missing["/software/strata_commit"] = buildInfo
      ? `the server's build_info "${buildInfo}" carries no full 40-character commit; pass the engine commit explicitly`
      : "the server reports no engine commit; pass the engine commit explicitly";
  }

  /** Why a fact /props should hold is null: what /props lacks, or why there is no /props. */
  const notInProps = (lack: string) => props ? lack : `unknown: ${endpointProblems["/props"]}`;
  const settings = props?.default_generation_settings as Record<string, unknown> | undefined;
  const contextTokens = positiveInteger(settings?.n_ctx);
  if (contextTokens === null) {
    missing["/configuration/context_tokens"] = notInProps("/props has no default_generation_settings.n_ctx");
  }
  const serverCapacity = positiveInteger(props?.total_slots) ?? (slots && slots.length > 0 ? slots.length : null);
  if (serverCapacity === null) {
    missing["/configuration/server_capacity"] = notInProps("/props has no total_slots and /slots listed no slot");
  }
  const chatTemplate = chatTemplateOf(props, missing, notInProps);
  const params = settings?.params;
  const defaultGenerationParams = typeof params === "object" && params !== null && !Array.isArray(params)
    ? params as Record<string, unknown>
    : null;
  const statusModel = status?.model as Record<string, unknown> | undefined;
  const modelPath = typeof props?.model_path === "string" && props.model_path !== ""
    ? props.model_path
    : typeof statusModel?.path === "string"
    ? statusModel.path
    : null;
  const modelAlias = typeof props?.model_alias === "string" ? props.model_alias : null;

  return {
    baseUrl,
    dialect,
    dialectEvidence,
    engineVersion,
    engineCommit,
    modelPath,
    modelAlias,
    contextTokens,
    serverCapacity,
    chatTemplate,
    defaultGenerationParams,
    priorRequests: priorRequestsFrom(metrics, slots, endpointProblems),
    props,
    status,
    slots,
    metrics,
    missing,
    endpointProblems,
  };
}

/** /props, /v1/status, /slots and /metrics, asked together: each one's reading, or why there is none. */
async function readEndpoints(deps: ProbeServerDeps, baseUrl: string) {
  const [propsReply, statusReply, slotsReply, metricsReply] = await Promise.all([
    fetchEndpoint(deps, baseUrl, "/props"),
    fetchEndpoint(deps, baseUrl, "/v1/status"),
    fetchEndpoint(deps, baseUrl, "/slots"),
    fetchEndpoint(deps, baseUrl, "/metrics"),
  ]);
  const endpointProblems: Record<string, string> = {};
  const props = propsReply.ok ? asObject(propsReply.body) : null;
  if (!propsReply.ok) endpointProblems["/props"] = propsReply.reason;
  else if (!props) endpointProblems["/props"] = "GET /props answered something that is not a JSON object";
  const status = statusReply.ok ? asObject(statusReply.body) : null;
  if (!statusReply.ok) endpointProblems["/v1/status"] = statusReply.reason;
  else if (!status) endpointProblems["/v1/status"] = "GET /v1/status answered something that is not a JSON object";
  const slots = slotsReply.ok ? asArray(slotsReply.body) : null;
  if (!slotsReply.ok) endpointProblems["/slots"] = slotsReply.reason;
  else if (!slots) endpointProblems["/slots"] = SLOTS_NOT_ARRAY;
  let metrics: Record<string, number> | null = null;
  if (metricsReply.ok) metrics = Object.fromEntries(parsePrometheusText(metricsReply.body));
  else endpointProblems["/metrics"] = metricsReply.reason;
  return { props, status, slots, metrics, endpointProblems };
}

/** The chat template /props reports, when the runner may copy it (its size capped); else null with the reason. */
function chatTemplateOf(
  props: Record<string, unknown> | null,
  missing: MissingMap,
  notInProps: (lack: string) => string,
): { text: string; sha256: string } | null {
  const templateText = typeof props?.chat_template === "string" && props.chat_template !== ""
    ? props.chat_template
    : null;
  const templateBytes = templateText === null ? 0 : new TextEncoder().encode(templateText).length;
  const templateFits = templateText !== null && templateBytes <= TEMPLATE_MAX_BYTES;
  const chatTemplate = templateFits ? { text: templateText, sha256: sha256Hex(templateText) } : null;
  if (templateText !== null && !templateFits) {
    missing["/configuration/template"] = `the server's chat template is ${templateBytes} bytes, more than the ` +
      `${TEMPLATE_MAX_BYTES} bytes the runner copies; it is not attached (its SHA-256 is ${sha256Hex(templateText)})`;
  } else if (!chatTemplate) {
    missing["/configuration/template"] = notInProps("/props reports no chat_template");
  }
  return chatTemplate;
}

const TOKEN_COUNTERS = ["llamacpp:prompt_tokens_total", "llamacpp:tokens_predicted_total", "llamacpp:n_decode_total"];
const QUEUE_GAUGES = ["llamacpp:requests_processing", "llamacpp:requests_deferred"];

/**
 * llama.cpp's /metrics counts tokens and decode calls since load, not requests: all counters at zero prove a
 * fresh server (the load-time warm-up bypasses the slots and is not counted); any nonzero counter proves at
 * least one request, but not how many. /slots adds evidence: a slot that holds a task id has served one.
 */
export function priorRequestsFrom(
  metrics: Record<string, number> | null,
  slots: unknown[] | null,
  endpointProblems: Record<string, string> = {},
): PriorRequests {
  const evidence: string[] = [];
  let atLeast = 0;
  const inFlight = QUEUE_GAUGES.reduce((sum, name) => sum + (metrics?.[name] ?? 0), 0);
  const counters = TOKEN_COUNTERS.filter((name) => metrics?.[name] !== undefined);
  for (const name of [...counters, ...QUEUE_GAUGES.filter((n) => metrics?.[n] !== undefined)]) {
    evidence.push(`${name} ${metrics?.[name]}`);
  }
  const worked = counters.some((name) => (metrics?.[name] ?? 0) > 0);
  if (worked) atLeast = 1;
  if (inFlight > 0) atLeast = Math.max(atLeast, inFlight);
  for (const slot of slots ?? []) {
    const record = slot as Record<string, unknown> | null;
    if (typeof record?.id_task === "number" && record.id_task >= 0) {
      evidence.push(`/slots slot ${String(record.id)} id_task ${record.id_task}`);
      atLeast = Math.max(atLeast, 1);
    }
  }
  if (counters.length > 0 && !worked && inFlight === 0 && atLeast === 0) {
    return { served: 0, atLeast: 0, freshlyLoaded: true, evidence, reason: null };
  }
  let reason: string;
  if (counters.length === 0) {
    const why = endpointProblems["/metrics"] ?? "/metrics has no llamacpp token counters";
    reason = `unknown: ${why} (llama-server needs --metrics)`;
  } else {
    reason = "the server has already processed tokens; llama.cpp's /metrics counts tokens, not requests";
  }
  return { served: null, atLeast, freshlyLoaded: atLeast > 0 ? false : null, evidence, reason };
}
