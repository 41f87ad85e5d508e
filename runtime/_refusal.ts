/**
 * Typed outcomes of runtime effects that may be refused or fail. Probes turn a refusal into `null` plus its
 * `reason` instead of crashing; the reason names the missing permission flag where one is the cause.
 */
import { errnoKind } from "./_errno.ts";

/** Why an effect produced no value. */
export interface Refusal {
  ok: false;
  /**
   * permission: the runtime refused (flag names the fix); not_found: no such file or program; cancelled: the
   * caller aborted the work.
   */
  kind: "permission" | "not_found" | "timeout" | "failed" | "cancelled";
  /** One human sentence, e.g. "permission to run nvidia-smi refused (add --allow-run=nvidia-smi)". */
  reason: string;
  /** The Deno flag that would grant the permission, when kind is "permission". */
  flag?: string;
}

/** A value, or the reason there is none. */
export type Outcome<T> = { ok: true; value: T } | Refusal;

const PERMISSION_MESSAGE = /Requires (\w+) access to "([^"]*)"/;

/** The Deno flag that grants what a NotCapable/PermissionDenied error message asks for. */
function flagFor(message: string, fallbackKind: string): string {
  const match = PERMISSION_MESSAGE.exec(message);
  const kind = match?.[1] ?? fallbackKind;
  const what = match?.[2] ?? "";
  // Paths are left out of the hint: a reason may end up in a published result.
  // Deno reads /sys and some /proc paths only under --allow-all, which takes no value.
  if (kind === "all") return "--allow-all";
  if (kind === "read" || kind === "write" || what === "") return `--allow-${kind}`;
  return `--allow-${kind}=${what}`;
}

/**
 * Classifies an error thrown by a runtime call into a Refusal. `action` reads like "read /proc/meminfo" or
 * "run nvidia-smi"; `permissionKind` is the Deno permission the call needs (read, run, sys, env, net, write).
 */
export function refusalFrom(error: unknown, action: string, permissionKind: string): Refusal {
  const err = error as { name?: unknown; code?: unknown; message?: unknown } | null;
  const name = typeof err?.name === "string" ? err.name : "";
  const message = typeof err?.message === "string" ? err.message : String(error);
  if (name === "NotCapable" || (name === "PermissionDenied" && /--allow-/.test(message))) {
    const flag = flagFor(message, permissionKind);
    // Writing under /proc or /sys: no narrow flag grants it, and --allow-all is never the fix, so say to write
    // elsewhere rather than point at a flag.
    const hint = flag === "--allow-all"
      ? permissionKind === "write"
        ? "Deno allows writing there only with --allow-all, which the narrow permission sets never use; choose " +
          "another folder"
        : "Deno grants this path only with --allow-all, which the narrow permission sets never use"
      : `add ${flag}`;
    return { ok: false, kind: "permission", reason: `permission to ${action} refused (${hint})`, flag };
  }
  const kind = errnoKind(error);
  if (kind === "not_found") return { ok: false, kind: "not_found", reason: `cannot ${action}: not found` };
  if (kind === "permission_denied") {
    return { ok: false, kind: "failed", reason: `cannot ${action}: the operating system denied access` };
  }
  const firstLine = message.split("\n")[0] ?? "";
  return { ok: false, kind: "failed", reason: `cannot ${action}: ${firstLine.slice(0, 200)}` };
}

/**
 * The Deno flag, with the path or name it needs, that would have granted what `error` was refused
 * ("--allow-write=/srv/results/bench"), or null when `error` is no permission refusal. For messages to the person
 * who ran the command (a result's reasons leave paths out: see `refusalFrom`).
 */
export function refusedPermissionFlag(error: unknown): string | null {
  const err = error as { name?: unknown; message?: unknown } | null;
  const message = typeof err?.message === "string" ? err.message : "";
  if (err?.name !== "NotCapable" && !(err?.name === "PermissionDenied" && /--allow-/.test(message))) return null;
  const match = PERMISSION_MESSAGE.exec(message);
  if (match === null) return /--allow-[a-z]+/.exec(message)?.[0] ?? "--allow-all";
  return match[2] === "" ? `--allow-${match[1]}` : `--allow-${match[1]}=${match[2]}`;
}
