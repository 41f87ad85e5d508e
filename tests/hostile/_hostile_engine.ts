/**
 * A hostile engine of the project's own, on raw TCP sockets (not the scripted engine's HTTP stack, not the
 * client's): every byte it sends is written by hand, so it can break HTTP, chunked framing and SSE in ways no HTTP
 * server library allows. It answers /health, /props, /v1/status (404), /slots and /metrics like a llama-server
 * and streams chat completions; a request whose `[case <id>]` marker is in `faults` gets that fault instead.
 * Every connection is closed after one answer (Connection: close), so the client never reuses one.
 */
import { type FaultName, FAULTS } from "./_faults.ts";

/** What one normal answer carries (the sanitizer corpus puts private and innocent strings here). */
export interface AnswerText {
  reasoning?: string;
  answer?: string;
  /** Arguments of one tool call named `lookup_record` (sent in three fragments). */
  toolArguments?: string;
}

export interface HostileEngineOptions {
  /** Fault by request id. */
  faults?: Readonly<Record<string, FaultName>>;
  /** Answer text by request id (default: a short reasoning and answer). */
  answers?: Readonly<Record<string, AnswerText>>;
  /** /props as a JSON object (merged over a llama-server-shaped default). */
  props?: Readonly<Record<string, unknown>>;
  /** /slots as JSON (default one idle slot). */
  slots?: unknown;
  /** Prompt tokens reported per request id (default 100). */
  promptTokens?: Readonly<Record<string, number>>;
  /** An HTTP 500 with this llama.cpp error message, by request id (instead of a stream). */
  errors?: Readonly<Record<string, string>>;
  /** Whole answers written by the caller, by request id ("*" for every request without its own). */
  streams?: Readonly<Record<string, (wire: Wire) => Promise<void>>>;
  /** POST /apply-template is read and never answered (the connection stays open until the client leaves). */
  silentTemplate?: boolean;
}

/** A running hostile engine. */
export interface HostileEngine {
  url: string;
  /** Request ids of the chat requests that arrived, in order. */
  chats: string[];
  /** Stops answering: the listener closes and every open connection is dropped (the engine "dies"). */
  die(): void;
  /** /health answers 503 from now on. */
  failHealth(): void;
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/** The connection of one exchange, with the writes the faults are made of. */
export class Wire {
  readonly conn: Deno.Conn;
  readonly requestId: string;
  readonly usageAsked: boolean;
  readonly answer: AnswerText;
  readonly promptTokens: number;
  readonly #engine: EngineState;
  closed = false;

  constructor(
    conn: Deno.Conn,
    requestId: string,
    usageAsked: boolean,
    answer: AnswerText,
    promptTokens: number,
    engine: EngineState,
  ) {
    this.conn = conn;
    this.requestId = requestId;
    this.usageAsked = usageAsked;
    this.answer = answer;
    this.promptTokens = promptTokens;
    this.#engine = engine;
  }

  /** Writes bytes (text as UTF-8); false once the peer is gone. */
  async raw(data: string | Uint8Array): Promise<boolean> {
    if (this.closed) return false;
    let bytes = typeof data === "string" ? encoder.encode(data) : data;
    try {
      while (bytes.length > 0) bytes = bytes.subarray(await this.conn.write(bytes));
      return true;
    } catch {
      this.closed = true;
      return false;
    }
  }

  /** A status line and headers, then the blank line. */
  head(status = 200, headers: Record<string, string> = {}): Promise<boolean> {
    const all = {
      "Content-Type": "text/event-stream",
      "Transfer-Encoding": "chunked",
      Connection: "close",
      ...headers,
    };
    const lines = Object.entries(all).filter(([, v]) => v !== "").map(([k, v]) => `${k}: ${v}\r\n`).join("");
    return this.raw(`HTTP/1.1 ${status} ${status === 200 ? "OK" : "Error"}\r\n${lines}\r\n`);
  }

  /** One HTTP chunk. */
  chunk(text: string | Uint8Array): Promise<boolean> {
    const bytes = typeof text === "string" ? encoder.encode(text) : text;
    if (bytes.length === 0) return Promise.resolve(true);
    const size = encoder.encode(`${bytes.length.toString(16)}\r\n`);
    const all = new Uint8Array(size.length + bytes.length + 2);
    all.set(size);
    all.set(bytes, size.length);
    all.set([13, 10], size.length + bytes.length);
    return this.raw(all);
  }

  /** One SSE event of a JSON value, as one HTTP chunk. */
  event(value: unknown): Promise<boolean> {
    return this.chunk(`data: ${JSON.stringify(value)}\n\n`);
  }

  /** A chat-completion chunk with one choice. */
  delta(delta: Record<string, unknown>, finish: string | null = null): Promise<boolean> {
    return this.event(chunkOf([{ index: 0, delta, finish_reason: finish }]));
  }

  /** The usage chunk (empty choices) with llama.cpp's timings. */
  usage(completionTokens = 12): Promise<boolean> {
    return this.event({
      ...chunkOf([]),
      usage: usageOf(this.promptTokens, completionTokens),
      timings: timingsOf(this.promptTokens, completionTokens),
    });
  }

  /** The whole of a normal answer's events, finish reason `finish`, without [DONE] or the terminator. */
  async body(finish = "stop"): Promise<void> {
    await this.delta({ role: "assistant", content: null });
    await this.delta({ reasoning_content: this.answer.reasoning ?? "Let me think." });
    if (this.answer.answer !== undefined || this.answer.toolArguments === undefined) {
      await this.delta({ content: this.answer.answer ?? "READY" });
    }
    if (this.answer.toolArguments !== undefined) {
      const args = this.answer.toolArguments;
      const third = Math.ceil(args.length / 3);
      await this.delta({
        tool_calls: [{
          index: 0,
          id: "call0",
          type: "function",
          function: { name: "lookup_record", arguments: args.slice(0, third) },
        }],
      });
      await this.delta({ tool_calls: [{ index: 0, function: { arguments: args.slice(third, 2 * third) } }] });
      await this.delta({ tool_calls: [{ index: 0, function: { arguments: args.slice(2 * third) } }] });
    }
    await this.delta({}, this.answer.toolArguments !== undefined && finish === "stop" ? "tool_calls" : finish);
    await this.usage();
  }

  done(): Promise<boolean> {
    return this.chunk("data: [DONE]\n\n");
  }

  terminator(): Promise<boolean> {
    return this.raw("0\r\n\r\n");
  }

  /** A normal, complete answer. */
  async normal(finish = "stop"): Promise<void> {
    await this.head();
    await this.body(finish);
    await this.done();
    await this.terminator();
  }

  /** Waits until the client goes away or the engine dies (for stalls): reads until end of stream. */
  async untilClientLeaves(): Promise<void> {
    const buffer = new Uint8Array(1024);
    try {
      while ((await this.conn.read(buffer)) !== null) { /* drain */ }
    } catch { /* gone */ }
  }

  /** Whether the engine was told to die. */
  get dead(): boolean {
    return this.#engine.dead;
  }

  /** The engine dies now (listener closed, every connection dropped). */
  killEngine(): void {
    this.#engine.kill();
  }

  /** /health answers 503 from now on. */
  failHealth(): void {
    this.#engine.failHealth();
  }
}

export function chunkOf(choices: unknown[]): Record<string, unknown> {
  return { id: "chatcmpl-hostile", object: "chat.completion.chunk", created: 1, model: "hostile", choices };
}

export function usageOf(prompt: number, completion: number) {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0 },
  };
}

export function timingsOf(prompt: number, completion: number) {
  return {
    cache_n: 0,
    prompt_n: prompt,
    prompt_ms: 50,
    prompt_per_token_ms: 50 / prompt,
    prompt_per_second: prompt / 0.05,
    predicted_n: completion,
    predicted_ms: 200,
    predicted_per_token_ms: 200 / completion,
    predicted_per_second: Math.round(((completion - 1) / 0.2) * 10) / 10,
  };
}

interface EngineState {
  dead: boolean;
  kill(): void;
  failHealth(): void;
}

/** Reads one HTTP request (head and Content-Length body); null when the client sent nothing complete. */
async function readRequest(conn: Deno.Conn): Promise<{ method: string; path: string; body: string } | null> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const buffer = new Uint8Array(64 * 1024);
  let headEnd = -1;
  let all = new Uint8Array(0);
  for (;;) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) return null;
    chunks.push(buffer.slice(0, n));
    total += n;
    all = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.length;
    }
    const text = new TextDecoder("latin1").decode(all);
    headEnd = text.indexOf("\r\n\r\n");
    if (headEnd === -1) continue;
    const head = text.slice(0, headEnd);
    const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? "0");
    if (total - (headEnd + 4) < length) continue;
    const [method = "", path = ""] = head.split("\r\n")[0]!.split(" ");
    const body = new TextDecoder().decode(all.subarray(headEnd + 4, headEnd + 4 + length));
    return { method, path, body };
  }
}

function requestIdOf(body: string): string {
  return /\[case ([A-Za-z0-9-]+)\]/.exec(body)?.[1] ?? "unknown";
}

/** Starts the hostile engine on 127.0.0.1, port 0. */
export function startHostileEngine(options: HostileEngineOptions = {}): HostileEngine {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const conns = new Set<Deno.Conn>();
  const chats: string[] = [];
  let healthUp = true;
  const state: EngineState = {
    dead: false,
    kill() {
      if (state.dead) return;
      state.dead = true;
      try {
        listener.close();
      } catch { /* closed */ }
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* closed */ }
      }
      conns.clear();
    },
    failHealth() {
      healthUp = false;
    },
  };
  const props = {
    build_info: "b7000-80fb11a",
    model_path: "",
    model_alias: "hostile",
    total_slots: 1,
    chat_template: "{% for m in messages %}{{ m.content }}{% endfor %}",
    default_generation_settings: { n_ctx: 32768, params: { top_k: 20 } },
    ...options.props,
  };
  const serveOne = async (conn: Deno.Conn) => {
    conns.add(conn);
    try {
      const request = await readRequest(conn);
      if (request === null || state.dead) return;
      const json = (status: number, value: unknown) => {
        const body = JSON.stringify(value);
        return conn.write(encoder.encode(
          `HTTP/1.1 ${status} X\r\nContent-Type: application/json\r\nContent-Length: ${
            encoder.encode(body).length
          }\r\nConnection: close\r\n\r\n${body}`,
        )).catch(() => 0);
      };
      if (request.method === "GET") {
        if (request.path === "/health") {
          await (healthUp ? json(200, { status: "ok" }) : json(503, { error: { code: 503, message: "down" } }));
        } else if (request.path === "/props") await json(200, props);
        else if (request.path === "/slots") {
          await json(200, options.slots ?? [{ id: 0, n_ctx: 32768, is_processing: false }]);
        } else if (request.path === "/metrics") {
          const text =
            "llamacpp:prompt_tokens_total 0\nllamacpp:tokens_predicted_total 0\nllamacpp:n_decode_total 0\n" +
            "llamacpp:requests_processing 0\nllamacpp:requests_deferred 0\n";
          await conn.write(encoder.encode(
            `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${text.length}\r\nConnection: close\r\n\r\n${text}`,
          )).catch(() => 0);
        } else await json(404, { error: { code: 404, message: "File Not Found" } });
        return;
      }
      if (request.path === "/apply-template" && options.silentTemplate) {
        await conn.read(new Uint8Array(1)).catch(() => null);
        return;
      }
      if (request.path !== "/v1/chat/completions") {
        // No /apply-template or /tokenize here: the runner's template check records them as not supported.
        await json(404, { error: { code: 404, message: "File Not Found" } });
        return;
      }
      const id = requestIdOf(request.body);
      chats.push(id);
      const usageAsked = /"include_usage"\s*:\s*true/.test(request.body);
      const wire = new Wire(
        conn,
        id,
        usageAsked,
        options.answers?.[id] ?? {},
        options.promptTokens?.[id] ?? 100,
        state,
      );
      const fault = options.faults?.[id];
      const error = options.errors?.[id];
      const stream = options.streams?.[id] ?? options.streams?.["*"];
      if (stream !== undefined) await stream(wire);
      else if (error !== undefined) await json(500, { error: { code: 500, message: error, type: "server_error" } });
      else if (fault === undefined) await wire.normal();
      else await FAULTS[fault].send(wire);
    } finally {
      conns.delete(conn);
      try {
        conn.close();
      } catch { /* closed */ }
    }
  };
  const accepting = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      serveOne(conn).catch(() => undefined);
    }
  })();
  return {
    url: `http://127.0.0.1:${port}`,
    chats,
    die: () => state.kill(),
    failHealth: () => state.failHealth(),
    async close() {
      state.kill();
      await accepting;
    },
  };
}
