/**
 * The command line of a server the runner did not start, observed from the process that listens on its loopback
 * port, or declared by the operator (`--engine-args`). What each system gives:
 *
 * - Linux: /proc/net/tcp and /proc/net/tcp6 name the listening socket's inode; the process holding it is the one
 *   whose /proc/PID/fd has a link to `socket:[INODE]`; /proc/PID/cmdline is its argv, NUL-separated and exact.
 *   Only read permission is needed; another user's process hides its fd links (then pass --engine-args).
 * - macOS: `lsof -nP -iTCP:PORT -sTCP:LISTEN -Fp` names the PID; `ps -o command= -p PID` gives the command as one
 *   line, so an argument that holds a space is split in two (pass --engine-args when that matters).
 * - Elsewhere, or in a container whose port is forwarded, the process is not visible: pass --engine-args.
 */
import type { ProbeDeps } from "./_deps.ts";

/** The observed or declared command line, or why there is none. */
export type EngineCommandLineReading =
  | { ok: true; argv: string[]; program: string; source: string }
  | { ok: false; reason: string };

const HINT = 'pass the server\'s command line as --engine-args "llama-server -m ... -c ..."';

/**
 * Splits a command line the way a POSIX shell splits words: blanks separate, single quotes keep everything,
 * double quotes keep all but `\"` and `\\`, a backslash outside quotes keeps the next character.
 * @throws {SyntaxError} on an unterminated quote.
 */
export function splitCommandLine(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "\\" && (next === '"' || next === "\\")) word += text[++i] ?? "";
      else word += c;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      inWord = true;
      if (c === "'" || c === '"') quote = c;
      else if (c === "\\" && next !== undefined) word += text[++i] ?? "";
      else word += c;
    }
  }
  if (quote !== null) throw new SyntaxError(`Cannot split the command line: the ${quote} quote is not closed`);
  if (inWord) words.push(word);
  return words;
}

/**
 * The engine argv from a declared command line (`--engine-args`): a leading program word is dropped.
 * @throws {SyntaxError} on an unterminated quote or an empty command line.
 */
export function declaredEngineArgs(text: string): EngineCommandLineReading & { ok: true } {
  const words = splitCommandLine(text);
  if (words.length === 0) throw new SyntaxError("Cannot use an empty --engine-args: give the server's command line");
  const program = words[0]!.startsWith("-") ? "" : words.shift()!;
  return { ok: true, argv: words, program: baseName(program), source: "--engine-args (declared by the operator)" };
}

function baseName(path: string): string {
  return path.split(/[\\/]/).at(-1) ?? path;
}

/** Socket inodes listening on `port` in a /proc/net/tcp or tcp6 table, with the owner's uid. */
export function listeningInodes(table: string, port: number): { inode: string; uid: string }[] {
  const found: { inode: string; uid: string }[] = [];
  for (const line of table.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    const local = f[1]?.split(":");
    if (local?.length !== 2 || f[3] !== "0A" || parseInt(local[1]!, 16) !== port) continue;
    if (f[7] !== undefined && f[9] !== undefined && /^\d+$/.test(f[9]) && f[9] !== "0") {
      found.push({ inode: f[9], uid: f[7] });
    }
  }
  return found;
}

/** The port of a loopback base URL, or a reason. */
function loopbackPort(baseUrl: string): number | string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return `"${baseUrl}" is not a URL`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!(host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host))) {
    return `the server at ${url.host} is not on this machine's loopback, so its process cannot be read`;
  }
  return url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
}

/** Finds the listening process on Linux through /proc; returns its PID or a reason. */
async function linuxListener(port: number, deps: ProbeDeps): Promise<string | { reason: string }> {
  const inodes: { inode: string; uid: string }[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await deps.readText(table);
    if (text.ok) inodes.push(...listeningInodes(text.value, port));
  }
  if (inodes.length === 0) return { reason: `no process on this machine listens on TCP port ${port} (/proc/net/tcp)` };
  const targets = new Set(inodes.map((i) => `socket:[${i.inode}]`));
  const readLink = deps.readLink;
  const pids = await deps.readDir("/proc");
  if (readLink === undefined || !pids.ok) return { reason: "the /proc process list cannot be read" };
  for (const pid of pids.value.filter((name) => /^\d+$/.test(name)).slice(0, 65_536)) {
    const fds = await deps.readDir(`/proc/${pid}/fd`);
    if (!fds.ok) continue;
    for (const fd of fds.value) {
      const link = await readLink(`/proc/${pid}/fd/${fd}`);
      if (link.ok && targets.has(link.value)) return pid;
    }
  }
  return {
    reason: `the process listening on port ${port} belongs to uid ${inodes[0]!.uid} and its open files cannot be ` +
      "read (another user's process, or a container's forwarded port)",
  };
}

/**
 * Observes the command line of the process listening on the loopback port of `baseUrl`. Never throws: every
 * failure is a reason that says to pass --engine-args.
 */
export async function observeEngineCommandLine(baseUrl: string, deps: ProbeDeps): Promise<EngineCommandLineReading> {
  const port = loopbackPort(baseUrl);
  if (typeof port === "string") return { ok: false, reason: `${port}; ${HINT}` };
  let argv: string[];
  let source: string;
  if (deps.platform === "linux") {
    const pid = await linuxListener(port, deps);
    if (typeof pid !== "string") return { ok: false, reason: `${pid.reason}; ${HINT}` };
    const cmdline = await deps.readText(`/proc/${pid}/cmdline`);
    if (!cmdline.ok) return { ok: false, reason: `/proc/${pid}/cmdline cannot be read (${cmdline.reason}); ${HINT}` };
    argv = cmdline.value.split("\0");
    if (argv.at(-1) === "") argv.pop();
    source = `observed: /proc/net/tcp port ${port} -> /proc/${pid}/cmdline`;
  } else if (deps.platform === "darwin") {
    const lsof = await deps.runCommand("lsof", ["-nP", `-iTCP:${port}`, "-sTCP:LISTEN", "-Fp"], { timeoutMs: 5000 });
    const pid = lsof.ok ? /^p(\d+)$/m.exec(lsof.value.stdout)?.[1] : undefined;
    if (pid === undefined) {
      const why = lsof.ok ? `lsof names no process listening on port ${port}` : `lsof failed (${lsof.reason})`;
      return { ok: false, reason: `${why}; ${HINT}` };
    }
    const ps = await deps.runCommand("ps", ["-o", "command=", "-p", pid], { timeoutMs: 5000 });
    if (!ps.ok) return { ok: false, reason: `ps cannot read process ${pid} (${ps.reason}); ${HINT}` };
    try {
      argv = splitCommandLine(ps.value.stdout.trim());
    } catch {
      argv = ps.value.stdout.trim().split(/\s+/);
    }
    source = `observed: lsof port ${port} -> ps -o command= -p ${pid} (one line: spaces inside arguments are lost)`;
  } else {
    return { ok: false, reason: `reading another process's command line is supported on Linux and macOS; ${HINT}` };
  }
  const program = baseName(argv.shift() ?? "");
  if (!/llama-server/.test(program)) {
    return {
      ok: false,
      reason: `the process listening on port ${port} is "${program}", not llama-server, so its options are not ` +
        `llama-server's (a proxy or container?); ${HINT}`,
    };
  }
  return { ok: true, argv, program, source };
}
