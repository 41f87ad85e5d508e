/**
 * The order in which `compare` measures its two sides, and the loop that brings each side's server up, measures
 * it and releases it. A side is a URL (a server someone else runs) or an engine profile started here.
 *
 * "Interleaved" (performance methodology, release validation) is read two ways, by what the sides are:
 * - Two URLs: both servers run all along, so the sides alternate at each concurrency point, round by round, the
 *   first side alternating per round (B C, C B, ...). Drift within a point then touches both sides alike.
 * - Any profile: two engines may not fit one GPU together, so each side's server is up only for its own turn. A
 *   round starts the baseline, warms up and measures every point, stops it, then does the same for the candidate;
 *   rounds repeat (B, C, B, C, ...), so slow drift (heat, clocks, background load) lands on both sides alike
 *   instead of on one side's whole block. Every turn warms up again, since a fresh engine starts cold.
 * A profile whose port already serves is reused and never stopped here; whatever this loop started, it stops, also
 * when a measurement throws or the run is cancelled.
 */
import { sanitizeCommand } from "../../sanitize/mod.ts";

export type CompareSide = "baseline" | "candidate";

/** One side of a comparison: a server already running at a loopback URL, or an engine profile (name or path). */
export type CompareTarget = { url: string } | { profile: string };

/** What `compare` needs of a profile's server (a subset of engine/mod.ts's EngineHandle). */
export interface CompareServer {
  baseUrl: string;
  /** True when started for this turn (and so stopped after it); false for a server found running. */
  started: boolean;
  /** The engine's argv without the program name when started here, else null. */
  engineArgs: readonly string[] | null;
  engineCommit: string | null;
  /** Stops a started engine; resolves with its exit (anything JSON-printable), null when nothing was stopped. */
  stop(): Promise<unknown>;
}

/** How a profile's server is recorded (load's config line, compare's server lines): machine paths redacted. */
export function profileServerStamp(profile: string, server: CompareServer, url = server.baseUrl) {
  return {
    profile: sanitizeCommand([profile]),
    base_url: url,
    started: server.started,
    engine_args: server.engineArgs === null ? null : sanitizeCommand(server.engineArgs),
    engine_commit: server.engineCommit,
  };
}

/** Brings up the server of profile `ref` (engine/mod.ts's startProfileEngine in the CLI; a fake in tests). */
export type ProfileStarter = (
  ref: string,
  options: { signal?: AbortSignal; progress: (line: string) => void },
) => Promise<CompareServer>;

/** One turn of a side's server: the concurrency points measured, in order, before it is released. */
export interface CompareSession {
  side: CompareSide;
  round: number;
  points: number[];
}

/** Whether a target is started from a profile. */
export function isProfileTarget(target: CompareTarget): target is { profile: string } {
  return "profile" in target;
}

/** The turns of a comparison, in order (see the module comment for the two readings of "interleaved"). */
export function compareSchedule(
  targets: Readonly<Record<CompareSide, CompareTarget>>,
  points: readonly number[],
  rounds: number,
): CompareSession[] {
  const sessions: CompareSession[] = [];
  if (isProfileTarget(targets.baseline) || isProfileTarget(targets.candidate)) {
    for (let round = 0; round < rounds; round++) {
      for (const side of ["baseline", "candidate"] as const) sessions.push({ side, round, points: [...points] });
    }
    return sessions;
  }
  for (const concurrency of points) {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ["baseline", "candidate"] as const : ["candidate", "baseline"] as const;
      for (const side of order) sessions.push({ side, round, points: [concurrency] });
    }
  }
  return sessions;
}

/** What the session loop calls outside itself. */
export interface CompareSessionIo {
  /** Required when a target is a profile. */
  startProfile?: ProfileStarter;
  /** Warm-up and measured issuance of one point of one round against `url`. */
  measure(side: CompareSide, url: string, point: number, round: number): Promise<void>;
  /**
   * Called once a turn's server is up, before its first measurement (`fromProfile`: the server a profile names,
   * started here or found running); may throw to stop the comparison.
   */
  ready?(side: CompareSide, url: string, fromProfile: boolean): Promise<void>;
  /** How a point is named in progress lines (default "concurrency N"). */
  describe?(point: number): string;
  /** Receives one JSON object per server turn start and per stop of a server started here. */
  record(line: Record<string, unknown>): void;
  progress(line: string): void;
  signal?: AbortSignal;
}

function otherSide(side: CompareSide): CompareSide {
  return side === "baseline" ? "candidate" : "baseline";
}

function sameTarget(a: CompareTarget, b: CompareTarget): boolean {
  return isProfileTarget(a) ? isProfileTarget(b) && a.profile === b.profile : !isProfileTarget(b) && a.url === b.url;
}

/**
 * Runs every session in order: brings the side's server up (a URL as is, a profile through `startProfile`),
 * measures its points, and stops what it started (in `finally`). Stops early, between points, once `signal` aborts.
 * @throws {Error} when a profile cannot be started, or when a reused server is the other side's server.
 */
export async function runCompareSessions(
  targets: Readonly<Record<CompareSide, CompareTarget>>,
  sessions: readonly CompareSession[],
  io: CompareSessionIo,
): Promise<void> {
  // The URL each side was last measured at, to refuse measuring one server as both sides by accident.
  const lastUrl: Partial<Record<CompareSide, string>> = {};
  for (const side of ["baseline", "candidate"] as const) {
    const target = targets[side];
    if (!isProfileTarget(target)) lastUrl[side] = target.url;
  }
  for (const session of sessions) {
    if (io.signal?.aborted) return;
    const target = targets[session.side];
    let server: CompareServer | null = null;
    if (isProfileTarget(target)) {
      if (io.startProfile === undefined) {
        throw new Error(`Cannot start profile "${target.profile}": no engine starter was given to compare`);
      }
      io.progress(`compare: round ${session.round + 1}, ${session.side}: profile ${target.profile}`);
      server = await io.startProfile(target.profile, {
        ...(io.signal ? { signal: io.signal } : {}),
        progress: (line) => io.progress(`compare: ${session.side}: ${line}`),
      });
    }
    try {
      const url = (server?.baseUrl ?? (target as { url: string }).url).replace(/\/+$/, "");
      const other = otherSide(session.side);
      if (
        server !== null && !server.started && lastUrl[other] === url && !sameTarget(target, targets[other])
      ) {
        throw new Error(
          `Cannot compare: the ${session.side} profile "${(target as { profile: string }).profile}" found a server ` +
            `already running at ${url}, where the ${other} side is measured; stop that server or give the two ` +
            `sides different ports`,
        );
      }
      lastUrl[session.side] = url;
      io.record({
        kind: "server",
        side: session.side,
        round: session.round,
        points: session.points,
        ...(isProfileTarget(target) ? profileServerStamp(target.profile, server!, url) : { url, started: false }),
      });
      await io.ready?.(session.side, url, server !== null);
      for (const point of session.points) {
        if (io.signal?.aborted) break;
        const name = io.describe?.(point) ?? `concurrency ${point}`;
        io.progress(`compare: ${name}, round ${session.round + 1}, ${session.side}`);
        await io.measure(session.side, url, point, session.round);
      }
    } finally {
      if (server?.started) {
        const exit = await server.stop();
        io.progress(`compare: stopped the ${session.side} engine (exit: ${JSON.stringify(exit)})`);
        io.record({ kind: "server-stopped", side: session.side, round: session.round, exit: exit ?? null });
      }
    }
  }
}
