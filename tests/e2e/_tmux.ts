/**
 * A pseudo-terminal a test can type into and read, as a person sees it: a tmux server on its own socket (never the
 * user's), one window of a fixed size running a shell, `type` sends a command line, `screen` is capture-pane's text.
 * Waiting polls the screen until a pattern shows, with a deadline. `close` kills the server (and what runs in it).
 */
import { join } from "node:path";

export interface Terminal {
  /** Types `line` and Enter into the shell. */
  type(line: string): Promise<void>;
  /** Sends a key such as "C-c". */
  key(name: string): Promise<void>;
  /** The visible screen (with `escapes`, the colour and attribute codes too). */
  screen(escapes?: boolean): Promise<string>;
  /** Everything the terminal showed, the scrolled-off lines included. */
  history(): Promise<string>;
  /** Resolves with the screen once it matches `pattern`; rejects with the last screen after `deadlineMs`. */
  waitFor(pattern: RegExp, deadlineMs: number): Promise<string>;
  close(): Promise<void>;
}

async function tmux(socket: string, args: string[]): Promise<string> {
  const out = await new Deno.Command("tmux", { args: ["-S", socket, "-f", "/dev/null", ...args], stderr: "piped" })
    .output();
  if (!out.success) throw new Error(`tmux ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** Whether tmux can be run here (CI installs it: .ci/run). */
export async function tmuxAvailable(): Promise<boolean> {
  try {
    return (await new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" }).output()).success;
  } catch {
    return false;
  }
}

/**
 * Opens a `columns` x `rows` terminal running sh in `cwd`, with `env` added (TERM is xterm-256color; NO_COLOR is
 * unset unless `env` sets it).
 */
export async function openTerminal(
  cwd: string,
  options: { columns?: number; rows?: number; env?: Record<string, string> } = {},
): Promise<Terminal> {
  const dir = await Deno.makeTempDir({ prefix: "strata-tty-" });
  const socket = join(dir, "tmux.sock");
  const env = Object.entries({ TERM: "xterm-256color", ...options.env }).map(([k, v]) => `${k}=${v}`);
  await tmux(socket, [
    "new-session",
    "-d",
    "-s",
    "t",
    "-x",
    String(options.columns ?? 140),
    "-y",
    String(options.rows ?? 40),
    "-c",
    cwd,
    "env",
    // A person's terminal: CI's own NO_COLOR is not the terminal's; a test that wants it passes it in `env`.
    "-u",
    "NO_COLOR",
    ...env,
    "sh",
  ]);
  const screen = async (escapes = false) =>
    await tmux(socket, ["capture-pane", "-p", ...(escapes ? ["-e"] : []), "-t", "t"]);
  return {
    type: async (line) => {
      await tmux(socket, ["send-keys", "-t", "t", "-l", line]);
      await tmux(socket, ["send-keys", "-t", "t", "Enter"]);
    },
    key: async (name) => {
      await tmux(socket, ["send-keys", "-t", "t", name]);
    },
    screen,
    history: async () => await tmux(socket, ["capture-pane", "-p", "-S", "-", "-t", "t"]),
    waitFor: async (pattern, deadlineMs) => {
      const until = performance.now() + deadlineMs;
      let last = "";
      while (performance.now() < until) {
        last = await screen();
        if (pattern.test(last)) return last;
        // The next look, not a guess at how long the command takes: capture-pane again on the next turn.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the screen did not show ${pattern} within ${deadlineMs} ms; it shows:\n${last}`);
    },
    close: async () => {
      await tmux(socket, ["kill-server"]).catch(() => "");
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
