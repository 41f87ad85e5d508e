/**
 * Facts about the machine and the user from the operating system. Each call returns an Outcome, so a refused
 * `--allow-sys` / `--allow-env` becomes a reason instead of a crash.
 */
import os from "node:os";
import process from "node:process";
import { type Outcome, refusalFrom } from "./_refusal.ts";

function attempt<T>(action: string, permissionKind: string, read: () => T): Outcome<T> {
  try {
    return { ok: true, value: read() };
  } catch (error) {
    return refusalFrom(error, action, permissionKind);
  }
}

/** Facts about this machine, each read on demand. */
export const sys = {
  /** Operating system family as Node names it: linux, darwin, win32, ... */
  platform: (): string => process.platform,
  /** CPU architecture: x64, arm64, ... */
  arch: (): string => process.arch,
  hostname: (): Outcome<string> => attempt("read the host name", "sys", () => os.hostname()),
  username: (): Outcome<string> => attempt("read the user name", "sys", () => os.userInfo().username),
  homeDir: (): Outcome<string> => attempt("read the home folder", "sys", () => os.homedir()),
  /** Kernel release (uname -r on Unix, the build number on Windows). */
  osRelease: (): Outcome<string> => attempt("read the kernel release", "sys", () => os.release()),
  totalMemBytes: (): Outcome<number> => attempt("read the memory size", "sys", () => os.totalmem()),
  /** Path of the running executable (the runtime binary, or a compiled strata-bench). */
  execPath: (): Outcome<string> => attempt("read the executable path", "read", () => process.execPath),
  /** CPU model as the OS reports it (first logical CPU). */
  cpuModel: (): Outcome<string> =>
    attempt("read the CPU model", "sys", () => {
      const model = os.cpus()[0]?.model?.trim();
      if (!model) throw new Error("the operating system reports no CPU model");
      return model;
    }),
  /** This process's id. */
  pid: (): number => process.pid,
  /** Number of logical CPUs; 1 when the count cannot be read. */
  cpuCount: (): number => {
    try {
      return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
    } catch {
      return 1;
    }
  },
  /** The 1-minute load average (runnable processes, Unix); a refusal where the platform or permission has none. */
  loadAverage1m: (): Outcome<number> =>
    attempt("read the load average", "sys", () => {
      const one = os.loadavg()[0];
      if (one === undefined || !Number.isFinite(one)) throw new Error("the operating system reports no load average");
      return one;
    }),
  /** An environment variable, or a refusal when unset or not permitted. */
  env: (name: string): Outcome<string> => {
    const got = attempt(`read the environment variable ${name}`, "env", () => process.env[name]);
    if (!got.ok) return got;
    if (got.value === undefined || got.value === "") {
      return { ok: false, kind: "not_found", reason: `environment variable ${name} is not set` };
    }
    return { ok: true, value: got.value };
  },
};
