import { setImmediate } from "node:timers";
import assert from "node:assert/strict";
import {
  closeIdleConnections,
  type ExchangeEnd,
  type ExchangeHandlers,
  startExchange,
} from "../../../client/_http_client.ts";
import { parseBaseUrl } from "../../../client/base_url.ts";
import { enqueueRead, exchangeInFlight, exchangesInFlight } from "../../../client/_read_queue.ts";
import { SSE_HEAD, startRawServer, within, writePieces } from "./_raw_server.ts";
import { chunked, deltaEvent } from "./_streams.ts";

Deno.test("a read task that throws goes to its owner and the tasks queued after it still run", async () => {
  const ran: string[] = [];
  const failed: unknown[] = [];
  let allRan!: () => void;
  const done = new Promise<void>((resolve) => allRan = resolve);
  enqueueRead(() => ran.push("a"), (error) => failed.push(error));
  enqueueRead(() => {
    throw new Error("boom");
  }, (error) => failed.push(error));
  enqueueRead(() => {
    throw new Error("again");
  }, () => {
    throw new Error("the owner fails too");
  });
  enqueueRead(() => {
    ran.push("d");
    allRan();
  }, (error) => failed.push(error));
  await within(done, 2000, "the queued tasks");
  assert.deepEqual(ran, ["a", "d"]);
  assert.equal(failed.length, 1);
  assert.equal((failed[0] as Error).message, "boom");
});

Deno.test("reads queued from outside while the queue yields (immediate or timer) all run once, in order", async () => {
  // Tasks of 0.6 ms make every slice one task long, so the queue yields between all of them (with its timer, two
  // exchanges being in flight); each task queues the next from an immediate, i.e. while the queue is yielding.
  const ran: number[] = [];
  let allRan!: () => void;
  const done = new Promise<void>((resolve) => allRan = resolve);
  const total = 40;
  let queued = 0;
  const queueNext = () => {
    const n = queued++;
    enqueueRead(() => {
      const until = performance.now() + 0.6;
      while (performance.now() < until) { /* a slow decode */ }
      ran.push(n);
      if (queued < total) setImmediate(queueNext);
      if (ran.length === total) allRan();
    }, (error) => {
      throw error;
    });
  };
  exchangeInFlight(1);
  exchangeInFlight(1);
  try {
    for (let i = 0; i < 4; i++) queueNext();
    await within(done, 5000, "the queued tasks");
  } finally {
    exchangeInFlight(-1);
    exchangeInFlight(-1);
  }
  assert.deepEqual(ran, Array.from({ length: total }, (_, i) => i));
});

/** Runs `body` with the global setTimeout counting the zero timers it is asked for; returns the count. */
async function zeroTimersDuring(body: () => Promise<void>): Promise<number> {
  const real = globalThis.setTimeout;
  let zero = 0;
  globalThis.setTimeout = ((handler: () => void, ms?: number) => {
    if (!ms) zero++;
    return real(handler, ms);
  }) as typeof setTimeout;
  try {
    await body();
  } finally {
    globalThis.setTimeout = real;
  }
  return zero;
}

/** Queues `count` reads of 0.6 ms (one slice each); resolves when all ran. */
function slowReads(count: number): Promise<void> {
  return new Promise((resolve) => {
    let ran = 0;
    for (let i = 0; i < count; i++) {
      enqueueRead(() => {
        const until = performance.now() + 0.6;
        while (performance.now() < until) { /* a slow decode */ }
        if (++ran === count) resolve();
      }, (error) => {
        throw error;
      });
    }
  });
}

Deno.test("a busy queue yields with a zero timer while other exchanges are in flight, never for one alone", async () => {
  exchangeInFlight(1);
  try {
    assert.equal(await zeroTimersDuring(() => within(slowReads(8), 5000, "one exchange's reads")), 0);
    exchangeInFlight(1);
    try {
      // Eight reads of a slice each: seven yields, every one a timer.
      assert.equal(await zeroTimersDuring(() => within(slowReads(8), 5000, "reads with two in flight")), 7);
    } finally {
      exchangeInFlight(-1);
    }
  } finally {
    exchangeInFlight(-1);
  }
});

/** Starts one exchange against `url` with no-op handlers except those given; `end` resolves with how it ended. */
function exchangeTo(
  url: string,
  path: string,
  handlers: Partial<ExchangeHandlers> = {},
  method: "GET" | "POST" = "POST",
) {
  let ended!: (end: ExchangeEnd) => void;
  const end = new Promise<ExchangeEnd>((resolve) => ended = resolve);
  const started = startExchange(
    {
      target: parseBaseUrl(url),
      method,
      path,
      ...(method === "POST" ? { body: new Uint8Array(2) } : {}),
      now: () => performance.now(),
    },
    { dispatch: () => {}, firstByte: () => {}, head: () => {}, body: () => {}, end: ended, ...handlers },
  );
  return { started, end };
}

Deno.test("a read's own buffer is handed back once its last piece is decoded, and the stream reads whole", async () => {
  const events = Array.from({ length: 400 }, (_, i) => deltaEvent(`{"content":"t${i} "}`));
  const server = await startRawServer((ex) => writePieces(ex.socket, [SSE_HEAD, chunked(events)]));
  const prototype = ArrayBuffer.prototype as { transfer: (length?: number) => ArrayBuffer };
  const transfer = prototype.transfer;
  const handedBack: number[] = [];
  prototype.transfer = function (this: ArrayBuffer, length?: number) {
    if (length === 0) handedBack.push(this.byteLength);
    return transfer.call(this, length);
  };
  try {
    const parts: Uint8Array[] = [];
    const { end } = exchangeTo(server.baseUrl, "/v1/chat/completions", { body: (bytes) => parts.push(bytes.slice()) });
    assert.deepEqual(await within(end, 2000, "the exchange end"), { kind: "complete" });
    const text = new TextDecoder().decode(new Uint8Array(parts.flatMap((part) => [...part])));
    assert.equal(text, events.join(""));
    assert.ok(handedBack.length >= 1 && handedBack.every((bytes) => bytes > 0), `buffers handed back: ${handedBack}`);
  } finally {
    prototype.transfer = transfer;
    closeIdleConnections();
    await server.close();
  }
});

Deno.test("body bytes a handler keeps with slice() stay whole after their read was handed back", async () => {
  // A Content-Length body reaches the handler as one slice of each read, uncopied: slice() must copy it (on a
  // runtime Buffer it would be a view of the read's buffer, empty once that buffer was handed back).
  const body = Uint8Array.from({ length: 200_000 }, (_, i) => 97 + (i % 26));
  const server = await startRawServer((ex) =>
    writePieces(ex.socket, [`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`, body])
  );
  try {
    const kept: Uint8Array[] = [];
    const { end } = exchangeTo(server.baseUrl, "/big", { body: (bytes) => kept.push(bytes.slice()) }, "GET");
    assert.deepEqual(await within(end, 2000, "the exchange end"), { kind: "complete" });
    assert.deepEqual(new Uint8Array(kept.flatMap((part) => [...part])), body);
  } finally {
    closeIdleConnections();
    await server.close();
  }
});

Deno.test("every way an exchange ends counts it out of the exchanges in flight", async () => {
  const server = await startRawServer((ex) =>
    writePieces(ex.socket, [
      SSE_HEAD,
      ex.head.includes("/throw")
        ? chunked([deltaEvent(`{"content":"z"}`)]).slice(0, -5)
        : chunked([deltaEvent(`{"content":"z"}`)]),
    ]).catch(() => {}) // the cancelled exchange's connection is gone before the answer
  );
  const base = exchangesInFlight();
  try {
    const complete = exchangeTo(server.baseUrl, "/ok");
    assert.equal(exchangesInFlight(), base + 1);
    assert.equal((await within(complete.end, 2000, "a complete answer")).kind, "complete");
    assert.equal(exchangesInFlight(), base, "after a complete answer");
    exchangeTo(server.baseUrl, "/ok").started.cancel();
    assert.equal(exchangesInFlight(), base, "after a cancel");
    const thrown = exchangeTo(server.baseUrl, "/throw", {
      body: () => {
        throw new Error("handler bug");
      },
    });
    assert.equal((await within(thrown.end, 2000, "a handler error")).kind, "handler_error");
    assert.equal(exchangesInFlight(), base, "after a handler error");
    const refused = exchangeTo("http://127.0.0.1:1", "/ok");
    assert.equal((await within(refused.end, 2000, "a refused connection")).kind, "connect_error");
    assert.equal(exchangesInFlight(), base, "after a refused connection");
    await exchangeTo(server.baseUrl, "/ok").end; // leaves a pooled connection, on which dispatch runs at once
    assert.throws(() =>
      exchangeTo(server.baseUrl, "/ok", {
        dispatch: () => {
          throw new Error("dispatch bug");
        },
      }), /dispatch bug/);
    assert.equal(exchangesInFlight(), base, "after a dispatch handler threw");
  } finally {
    closeIdleConnections();
    await server.close();
  }
});

Deno.test("a body handler that throws ends that exchange as handler_error and closes its connection", async () => {
  const server = await startRawServer((ex) =>
    writePieces(ex.socket, [SSE_HEAD, chunked([deltaEvent(`{"content":"z"}`)]).slice(0, -5)])
  );
  try {
    const ends: ExchangeEnd[] = [];
    let ended!: () => void;
    const endedOnce = new Promise<void>((resolve) => ended = resolve);
    startExchange({
      target: parseBaseUrl(server.baseUrl),
      method: "POST",
      path: "/v1/chat/completions",
      body: new TextEncoder().encode("{}"),
      now: () => performance.now(),
    }, {
      dispatch: () => {},
      firstByte: () => {},
      head: () => {},
      body: () => {
        throw new Error("handler bug");
      },
      end: (end) => {
        ends.push(end);
        ended();
      },
    });
    await within(endedOnce, 2000, "the exchange end");
    assert.deepEqual(ends, [{ kind: "handler_error", message: "Cannot handle the response: handler bug" }]);
    await within(server.requests[0]!.closed, 2000, "the client to close the connection");
  } finally {
    closeIdleConnections();
    await server.close();
  }
});
