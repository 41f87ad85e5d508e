/** A fake machine for probe tests: files, folders, links and commands given as plain data. */
import { readFileSync } from "node:fs";
import type { ProbeDeps } from "../../../probe/mod.ts";
import type { CommandOutput, FileFacts, Outcome } from "../../../probe/_deps.ts";

const DATA = new URL("../../data/probe/", import.meta.url);

/** A captured tool output from tests/data/probe. */
export function captured(name: string): string {
  return readFileSync(new URL(name, DATA), "utf8");
}

/** What a fake command does: print stdout (exit 0), exit with a code, or be refused / missing. */
export type FakeCommand = string | CommandOutput | { refuse: "permission" | "not_found" | "timeout" };

/** The fake machine. Commands are keyed by "program arg1 arg2". */
export interface FakeMachine {
  platform?: string;
  arch?: string;
  files?: Record<string, string | { refuse: "permission" }>;
  dirs?: Record<string, string[]>;
  links?: Record<string, string>;
  /** Binary files, read through openReader (stat gives their size). */
  binaries?: Record<string, Uint8Array>;
  commands?: Record<string, FakeCommand>;
  env?: Record<string, string>;
  osRelease?: string;
  totalMemBytes?: number;
  cpuModel?: string;
  /** When true every sys/env read is refused as under `deno run` without --allow-sys/--allow-env. */
  refuseSys?: boolean;
  fetch?: typeof fetch;
}

function refused(what: string, flag: string): Outcome<never> {
  return { ok: false, kind: "permission", reason: `permission to ${what} refused (add ${flag})`, flag };
}

function notFound(what: string): Outcome<never> {
  return { ok: false, kind: "not_found", reason: `cannot ${what}: not found` };
}

/** ProbeDeps over a fake machine; `calls` records every command run. */
export function fakeDeps(machine: FakeMachine): ProbeDeps & { calls: string[] } {
  const calls: string[] = [];
  const files = machine.files ?? {};
  const sysValue = <T>(what: string, value: T | undefined): Outcome<T> =>
    machine.refuseSys ? refused(what, "--allow-sys") : value === undefined ? notFound(what) : { ok: true, value };
  return {
    calls,
    platform: machine.platform ?? "linux",
    arch: machine.arch ?? "x64",
    runCommand: (command, args) => {
      const key = [command, ...args].join(" ");
      calls.push(key);
      const entry = machine.commands?.[key];
      if (entry === undefined) {
        const known = Object.keys(machine.commands ?? {}).some((k) => k.split(" ")[0] === command);
        return Promise.resolve(
          known
            ? { ok: true, value: { code: 2, stdout: "", stderr: `unexpected arguments: ${args.join(" ")}` } }
            : { ok: false, kind: "not_found", reason: `${command} not found` },
        );
      }
      if (typeof entry === "string") {
        return Promise.resolve({ ok: true, value: { code: 0, stdout: entry, stderr: "" } });
      }
      if ("refuse" in entry) {
        if (entry.refuse === "permission") {
          return Promise.resolve(refused(`run ${command}`, `--allow-run=${command}`));
        }
        if (entry.refuse === "timeout") {
          return Promise.resolve({ ok: false, kind: "timeout", reason: `${command} did not finish within 15000 ms` });
        }
        return Promise.resolve({ ok: false, kind: "not_found", reason: `${command} not found` });
      }
      return Promise.resolve({ ok: true, value: entry });
    },
    readText: (path) => {
      const entry = files[path];
      if (entry === undefined) return Promise.resolve(notFound(`read ${path}`));
      if (typeof entry !== "string") return Promise.resolve(refused(`read ${path}`, "--allow-read"));
      return Promise.resolve({ ok: true, value: entry });
    },
    readDir: (path) => {
      const entry = machine.dirs?.[path];
      return Promise.resolve(entry ? { ok: true, value: [...entry].sort() } : notFound(`list ${path}`));
    },
    stat: (path) => {
      const isDir = machine.dirs?.[path] !== undefined;
      const file = files[path] ?? machine.binaries?.[path];
      if (!isDir && file === undefined) return Promise.resolve(notFound(`stat ${path}`));
      const facts: FileFacts = {
        sizeBytes: typeof file === "string" || file instanceof Uint8Array ? file.length : 0,
        mtimeMs: 0,
        ino: 1,
        isFile: !isDir,
        isDirectory: isDir,
      };
      return Promise.resolve({ ok: true, value: facts });
    },
    realPath: (path) => {
      const target = machine.links?.[path];
      if (target) return Promise.resolve({ ok: true, value: target });
      return Promise.resolve(
        files[path] !== undefined || machine.dirs?.[path] ? { ok: true, value: path } : notFound(`resolve ${path}`),
      );
    },
    openReader: (path) => {
      const bytes = machine.binaries?.[path];
      if (bytes === undefined) return Promise.resolve(notFound(`open ${path}`));
      let at = 0;
      return Promise.resolve({
        ok: true,
        value: {
          read: (buffer: Uint8Array) => {
            const n = Math.min(buffer.length, bytes.length - at);
            buffer.set(bytes.subarray(at, at + n));
            at += n;
            return Promise.resolve(n);
          },
          close: () => Promise.resolve(),
        },
      });
    },
    writeText: () => Promise.resolve(refused("write", "--allow-write")),
    fetch: machine.fetch ?? (() => Promise.reject(new TypeError("no network in this fake"))),
    osRelease: () => sysValue("read the kernel release", machine.osRelease),
    totalMemBytes: () => sysValue("read the memory size", machine.totalMemBytes),
    cpuModel: () => sysValue("read the CPU model", machine.cpuModel),
    cpuCount: () => 4,
    env: (name) => {
      if (machine.refuseSys) return refused(`read the environment variable ${name}`, `--allow-env=${name}`);
      const value = machine.env?.[name];
      return value
        ? { ok: true, value }
        : { ok: false, kind: "not_found", reason: `environment variable ${name} is not set` };
    },
    homeDir: () => sysValue<string>("read the home folder", undefined),
    execPath: () => sysValue<string>("read the executable path", undefined),
    nowMs: () => 0,
  };
}

/** The nvidia-smi query command line the probe runs. */
export const NVIDIA_QUERY =
  "nvidia-smi --query-gpu=index,name,memory.total,power.limit,driver_version --format=csv,noheader,nounits";
/** The rocm-smi command line the probe runs. */
export const ROCM_QUERY = "rocm-smi --showproductname --showmeminfo vram --showmaxpower --showdriverversion --json";
