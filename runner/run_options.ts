/** The options, parts and report of one protocol run (`runProtocol`), and what is known before it sends. */
import type { LoopbackVerdict } from "../client/mod.ts";
import type {
  ChatTemplateKwargs,
  Dialect,
  Fixture,
  RequestRecord,
  Result,
  Sampling,
  StreamProgress,
} from "../contract/mod.ts";
import type { GpuPowerSampler, Provenance, ServerFacts, TemplateProbe } from "../probe/mod.ts";
import type { Sanitizers } from "../report/mod.ts";
import type { ResultFiles } from "../runtime/mod.ts";
import type { ChatBody } from "./request_body.ts";
import type { ExecutorDeps, SchedulePosition } from "./executor.ts";
import type { RunPlan } from "./plan.ts";
import type { TemplateCheck } from "./template_check.ts";
import type { EngineLogSource } from "./engine_log.ts";

/** What the engine cannot tell the runner, as the operator declared it on the command line (null when unset). */
export interface DeclaredProvenance {
  modelId: string | null;
  modelRevision: string | null;
  sourceRevision: string | null;
  tokenizerRevision: string | null;
  quantization: string | null;
  customPack: string | null;
  background: string[];
  buildOptions: string[] | null;
  engineCommit: string | null;
  /** --engine-source: a llama.cpp checkout that resolves the server's short commit to the full one. */
  engineSource?: string | null;
  /** --engine-args: the server's command line, used where its process cannot be read. */
  engineCommandLine?: string | null;
}

/** Operator-supplied facts and choices. */
export interface RunOptions {
  baseUrl: string;
  optionalConcurrency: boolean;
  track: "default" | "custom";
  trackNotes: string | null;
  /** Provenance flags as given (null when unset). */
  declared: DeclaredProvenance;
  /** The operator says the server is a simulation (the demo); the run is labelled simulated. */
  simulated: boolean;
  /** Folder the model files are named relative to (--pack-dir); else by their base names. */
  packDir?: string | null;
  /**
   * Render and count every fixture on the server before the warm-up (default true where the server has
   * /apply-template and /tokenize); a mismatch with the frozen counts stops the run before anything is measured.
   */
  checkTemplate?: boolean;
  /** Results root; default bench/results or ./bench-results under the current folder. */
  outRoot?: string;
  /** Per-request deadline; the protocol's 1,800 s unless a test shortens it. */
  deadlineS?: number;
  signal?: AbortSignal;
  /** The command line as typed (sanitized before it is written). */
  command: string;
  /** The engine's argv (without the program) when the runner started it from a profile; its model files are hashed. */
  engineArgs?: readonly string[] | null;
  /** Variables the profile gives the started engine on top of this environment (its GPU selection). */
  engineEnv?: Readonly<Record<string, string>>;
  /** More model files a profile names besides the -m files of `engineArgs`. */
  engineModelFiles?: readonly string[];
  /** The started engine's log so far; attached as the engine_log artifact. */
  engineLog?: () => string;
  /** A server's log the operator names (`--engine-log FILE`), read after the requests; checked like engineLog. */
  engineLogSource?: EngineLogSource;
  /**
   * Seconds the engine the runner started from a profile took from spawn to ready (model load included); the
   * result reports it apart from the run. Absent when the server was already running.
   */
  engineLoadSeconds?: number | null;
  /** A request is about to be sent; `live` is what its stream has delivered so far (see StreamProgress). */
  onRequestStart?(fixture: Fixture, position: SchedulePosition, live: StreamProgress): void;
  onRequestEnd?(record: RequestRecord, position: SchedulePosition): void;
  /**
   * The run's stages as they begin: the bundle and server checks, provenance (model hashing), the requests, and
   * the finishing of the folder.
   */
  onStage?(stage: RunStage): void;
}

/** What the run is doing, for a person's progress line. */
export type RunStage = "checking" | "provenance" | "requests" | "writing";

/** The parts the run joins. */
export interface RunDeps extends ExecutorDeps {
  loadBundle(): Promise<{ fixtures: Fixture[]; corpusSha256: string }>;
  buildChatBody(fixture: Fixture, dialect: Dialect): ChatBody;
  probeServer(baseUrl: string): Promise<ServerFacts>;
  /** The server's rendering and token ids of each body (the template check); absent: the check is not run. */
  renderAndCount?(
    baseUrl: string,
    requests: { id: string; body: Record<string, unknown> }[],
    signal?: AbortSignal,
  ): Promise<TemplateProbe>;
  /** The probe's provenance for this server (hardware, software, model, configuration, missing, reasons). */
  collectProvenance(server: ServerFacts, options: RunOptions): Promise<Provenance>;
  files: ResultFiles;
  sanitizers: Sanitizers;
  validateResultText(
    text: string,
    options: {
      maxSharedPrefixTokens: Readonly<Record<string, number>>;
      readArtifact?: (relativePath: string) => Promise<Uint8Array | null>;
      fixtures?: readonly Fixture[];
      corpusSha256?: string;
    },
  ): Promise<{ pointer: string; message: string }[]>;
  readArtifact(folder: string, relativePath: string): Promise<Uint8Array | null>;
  renderReadme(result: Result): string;
  /** The result's pictures (SVG text), drawn from the sanitized result. */
  renderPictures(result: Result): Promise<{ file: string; svg: string; renderer: string }[]>;
  /** Wall clock (started_at and the run id). */
  now(): Date;
  /** Starts sampling GPU power on the clock `nowMs` (extensions.gpu_power); absent: no power record. */
  startGpuPower?(nowMs: () => number): GpuPowerSampler;
}

export interface RunReport {
  folder: string;
  result: Result;
  /** Problems the strict validator found in the written results.json (expected: none). */
  validationProblems: { pointer: string; message: string }[];
  /** Nulls that got only a generic reason (a defect; expected: none). */
  unexplainedNulls: string[];
}

/** Everything known before the first request is sent. */
export interface PreparedRun {
  bundle: { fixtures: Fixture[]; corpusSha256: string };
  where: LoopbackVerdict;
  server: ServerFacts;
  provenance: Provenance;
  plan: RunPlan;
  /** The exact body of every planned request, built once. */
  bodies: Map<string, ChatBody>;
  sampling: Sampling;
  chatTemplateKwargs: ChatTemplateKwargs;
  /** Run-level nonconforming reasons (not loopback, dialect unknown, simulated engine). */
  reasons: string[];
  simulated: boolean;
  /** The template check before the warm-up; null when it was not run (turned off, or no renderAndCount). */
  templateCheck: TemplateCheck | null;
}
