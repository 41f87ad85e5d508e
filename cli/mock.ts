/** `mock`: starts the scripted llama.cpp-compatible engine on loopback until SIGINT/SIGTERM. */
import { onTerminationSignal, readTextFile, writeStderr, writeStdout, writeTextOutcome } from "../runtime/mod.ts";
import { loadBundle } from "../fixtures/mod.ts";
import {
  type MockEngineOptions,
  type MockScript,
  parseMockScript,
  startMockEngine,
  tokenCountsFrom,
} from "../mock/mod.ts";
import { isLoopbackHost } from "../client/mod.ts";
import { numberFlag, parseFlags, UsageError } from "./_args.ts";
import { endWith, EXIT } from "./exit_codes.ts";
import { helpFooter } from "./_help.ts";

export const HELP = `Usage: strata-bench mock [options]

Starts the scripted engine: a fake llama-server (llama.cpp) that answers chat completions with llama.cpp-shaped
streams, usage and timings, and serves /health, /props, /slots, /metrics and /v1/models. It knows the right answer
of every sanity case; other requests reason until their output cap. A script makes chosen requests answer wrong,
stop early, or fail. Prints the base URL on stdout, then runs until Ctrl-C or SIGTERM.

Options:
  --port N           port to listen on (default 8080; 0 picks a free port)
  --host HOST        loopback address to bind: 127.0.0.0/8, ::1, localhost (default 127.0.0.1; others refused)
  --slots N          parallel slots; more concurrent requests wait in a FIFO queue (default 4)
  --script FILE      JSON object: request id, id prefix ending in *, or "*" -> behaviour (see mock/mod.ts)
  --decode-tps N     decode speed per slot, tokens/s, used for waiting and for the reported timings (default 50)
  --prompt-tps N     prompt processing speed, tokens/s (default 1500)
  --instant          do not wait: answer as fast as possible (timings still follow the configured speeds)
  --no-bundle        count prompt tokens as characters/4 instead of reading input_tokens from the fixture bundle
  --log FILE         on stop, write every chat request's log (arrival, first-delta and end send times in epoch
                     microseconds, outcome, tokens) as a JSON array to FILE; "-" writes it to stdout after the URL

${
  helpFooter([
    "strata-bench mock",
    "strata-bench mock --port 0 --slots 1 --decode-tps 5",
    "strata-bench mock --instant --log -",
  ])
}
Exit codes:
  ${EXIT.ok}  stopped by a signal
  ${EXIT.usage}  usage error (unknown flag, bad value, non-loopback host, invalid script)
  ${EXIT.environment}  environment failure (script file unreadable, port in use, request log unwritable)
`;

/** What the command writes to and when it stops; main() wires the process, tests pass their own. */
export interface MockCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Resolves when the engine should stop (a termination signal). */
  stopped: Promise<unknown>;
}

/** Parses the command line into engine options (the script file is read separately). @throws {UsageError}. */
export function parseCommandLine(argv: string[]): ReturnType<typeof parseMockArgs> {
  return parseMockArgs(argv);
}

function parseMockArgs(
  argv: string[],
): { options: MockEngineOptions; scriptPath: string | null; bundle: boolean; logPath: string | null } {
  const { values } = parseFlags("start mock", argv, {
    port: { type: "string" },
    host: { type: "string" },
    slots: { type: "string" },
    script: { type: "string" },
    "decode-tps": { type: "string" },
    "prompt-tps": { type: "string" },
    instant: { type: "boolean" },
    "no-bundle": { type: "boolean" },
    log: { type: "string" },
  });
  if (values.log === "") throw new UsageError('Cannot start mock: --log needs a file path or "-" for stdout');
  const hostname = values.host ?? "127.0.0.1";
  if (!isLoopbackHost(hostname)) {
    throw new UsageError(`Cannot start mock: host "${hostname}" is not loopback; use 127.0.0.1 or ::1`);
  }
  const port = numberFlag("start mock", values, "port", { integer: true, min: 0, max: 65535 }) ?? 8080;
  const slots = numberFlag("start mock", values, "slots", { integer: true, min: 1 }) ?? 4;
  return {
    options: {
      hostname: /^\[.*\]$/.test(hostname) ? hostname.slice(1, -1) : hostname,
      port,
      slots,
      decodeTps: numberFlag("start mock", values, "decode-tps", { above: 0 }) ?? 50,
      promptTps: numberFlag("start mock", values, "prompt-tps", { above: 0 }) ?? 1500,
      timeScale: values.instant ? 0 : 1,
    },
    scriptPath: values.script ?? null,
    bundle: values["no-bundle"] !== true,
    logPath: values.log ?? null,
  };
}

/** Runs the command with the given I/O; resolves with the exit code once `io.stopped` resolves. */
export async function runMockCommand(argv: string[], io: MockCommandIo): Promise<number> {
  let parsed;
  let script: MockScript = {};
  try {
    parsed = parseMockArgs(argv);
    if (parsed.scriptPath !== null) {
      // An unreadable script is the environment's (FileReadError), one that does not parse a usage error.
      const text = await readTextFile(parsed.scriptPath);
      try {
        script = parseMockScript(JSON.parse(text));
      } catch (error) {
        throw new UsageError(`Cannot read script "${parsed.scriptPath}": ${(error as Error).message}`);
      }
    }
  } catch (error) {
    return endWith(error, undefined, { write: io.stderr });
  }
  const options: MockEngineOptions = { ...parsed.options, script };
  if (parsed.bundle) {
    try {
      const { fixtures } = await loadBundle();
      options.tokenCounts = tokenCountsFrom(fixtures);
    } catch (error) {
      io.stderr(`mock: prompt tokens count as characters/4 (${(error as Error).message.split("\n")[0]})\n`);
    }
  }
  let engine;
  try {
    engine = await startMockEngine(options);
  } catch (error) {
    return endWith(error, (message) => `Cannot start mock: ${message}`, {
      otherwise: EXIT.environment,
      write: io.stderr,
    });
  }
  io.stdout(`${engine.url}\n`);
  io.stderr(
    `mock: ${options.slots} slot(s), decode ${options.decodeTps} tok/s, prompt ${options.promptTps} tok/s` +
      `${options.timeScale === 0 ? ", instant" : ""}; stop with Ctrl-C\n`,
  );
  try {
    await io.stopped;
  } finally {
    await engine.close();
  }
  if (parsed.logPath !== null) {
    const text = `${JSON.stringify(engine.requests)}\n`;
    if (parsed.logPath === "-") io.stdout(text);
    else {
      const written = await writeTextOutcome(parsed.logPath, text);
      if (!written.ok) {
        io.stderr(`Cannot write the request log "${parsed.logPath}": ${written.reason}\n`);
        return EXIT.environment;
      }
    }
  }
  return EXIT.ok;
}

/** Entry point of `mock`. */
export async function main(argv: string[]): Promise<number> {
  let remove = () => {};
  const stopped = new Promise<unknown>((resolve) => {
    remove = onTerminationSignal(resolve);
  });
  try {
    return await runMockCommand(argv, { stdout: writeStdout, stderr: writeStderr, stopped });
  } finally {
    remove();
  }
}
