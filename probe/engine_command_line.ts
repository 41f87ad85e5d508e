/**
 * The command line of a server the runner did not start, observed from the process that listens on its loopback
 * port, or declared by the operator (`--engine-args`). Deno grants /proc only with --allow-all, which no permission
 * set uses, so the process is found with the system's tools (the permission sets allow exactly these):
 *
 * - Linux: `ss -Hltnp sport = :PORT` names the listening process (`users:(("llama-server",pid=N,fd=3))`); another
 *   user's process is not named.
 * - macOS: `lsof -nP -iTCP:PORT -sTCP:LISTEN -Fp` names the PID.
 * - Both: `ps -ww -o args= -p PID` gives the command as one line, so an argument that holds a space is split in two
 *   (pass --engine-args when that matters).
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

/** The longest one argument of a process may be on Linux (MAX_ARG_STRLEN, 32 pages of 4 KiB). */
const MAX_ARG_CHARS = 131_072;

/** The PID listening on `port`, from ss (Linux) or lsof (macOS); or why there is none. */
async function listenerPid(port: number, deps: ProbeDeps): Promise<{ pid: string; tool: string } | { reason: string }> {
  const linux = deps.platform === "linux";
  const tool = linux ? "ss" : "lsof";
  const args = linux ? ["-Hltnp", "sport", "=", `:${port}`] : ["-nP", `-iTCP:${port}`, "-sTCP:LISTEN", "-Fp"];
  const listed = await deps.runCommand(tool, args, { timeoutMs: 5000 });
  if (!listed.ok) return { reason: `${tool} cannot list the listening sockets (${listed.reason})` };
  const text = listed.value.stdout;
  const pid = (linux ? /\bpid=(\d+)/ : /^p(\d+)$/m).exec(text)?.[1];
  if (pid !== undefined) return { pid, tool };
  if (linux && /\bLISTEN\b/.test(text)) {
    return { reason: `ss names no process for port ${port} (another user's process, or a container's forwarded port)` };
  }
  return { reason: `no process on this machine listens on TCP port ${port} (${tool})` };
}

/**
 * Observes the command line of the process listening on the loopback port of `baseUrl`. Never throws: every
 * failure is a reason that says to pass --engine-args.
 */
export async function observeEngineCommandLine(baseUrl: string, deps: ProbeDeps): Promise<EngineCommandLineReading> {
  const port = loopbackPort(baseUrl);
  if (typeof port === "string") return { ok: false, reason: `${port}; ${HINT}` };
  if (deps.platform !== "linux" && deps.platform !== "darwin") {
    return { ok: false, reason: `reading another process's command line is supported on Linux and macOS; ${HINT}` };
  }
  const found = await listenerPid(port, deps);
  if ("reason" in found) return { ok: false, reason: `${found.reason}; ${HINT}` };
  const ps = await deps.runCommand("ps", ["-ww", "-o", "args=", "-p", found.pid], { timeoutMs: 5000 });
  const line = ps.ok ? ps.value.stdout.trim() : "";
  if (line === "") {
    return { ok: false, reason: `ps cannot read process ${found.pid} (${ps.ok ? "no output" : ps.reason}); ${HINT}` };
  }
  const argv = line.split(/\s+/);
  const long = argv.find((word) => word.length > MAX_ARG_CHARS);
  if (long !== undefined) {
    return {
      ok: false,
      reason: `ps printed a word of ${long.length} characters for process ${found.pid}, longer than Linux lets one ` +
        `argument be (${MAX_ARG_CHARS} bytes), so it is not that process's command line; ${HINT}`,
    };
  }
  const source = `observed: ${found.tool} port ${port} -> ps -o args= -p ${found.pid} (one line: an argument holding ` +
    "a space is split)";
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
