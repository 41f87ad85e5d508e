/**
 * A text file written as it grows: lines are buffered and appended in order by one background chain of writes,
 * so a long run keeps no more than the buffer in memory and a crash keeps what was already written. Never throws:
 * the first failure is kept, later writes are dropped, and `close` reports it.
 */
import type { FileHandle } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { outputRefusal } from "./_file_access.ts";
import { openFolderWriter } from "./_folder_writer.ts";
import { type Outcome, refusalFrom } from "./_refusal.ts";

/** An open line-oriented output file. */
export interface LineWriter {
  /** Queues text (the caller adds newlines); flushed in the background once the buffer is full. */
  write(text: string): void;
  /** Writes what is buffered, waits for every queued write, and closes; the outcome of the whole file. */
  close(): Promise<Outcome<true>>;
}

const FLUSH_AT_CHARS = 256 * 1024;

/**
 * Creates the new file `path` through the folder writer, creating its folder, and returns its writer; a refusal when
 * it cannot: a file that exists already (a new file never overwrites an earlier result), or a link in place of the
 * file or its folder (never written through).
 */
export async function openLineWriter(path: string): Promise<Outcome<LineWriter>> {
  let handle: FileHandle;
  try {
    handle = await (await openFolderWriter(dirname(path), { refuseLink: true })).create(basename(path));
  } catch (error) {
    return outputRefusal(error, path);
  }
  let parts: string[] = [];
  let buffered = 0;
  let chain: Promise<void> = Promise.resolve();
  let failure: Outcome<true> | null = null;
  const encoder = new TextEncoder();
  const flushNow = () => {
    if (buffered === 0) return;
    const bytes = encoder.encode(parts.join(""));
    parts = [];
    buffered = 0;
    chain = chain.then(async () => {
      if (failure !== null) return;
      try {
        let at = 0;
        while (at < bytes.length) at += (await handle.write(bytes, at, bytes.length - at)).bytesWritten;
      } catch (error) {
        failure = refusalFrom(error, `write ${path}`, "write");
      }
    });
  };
  return {
    ok: true,
    value: {
      write(text) {
        parts.push(text);
        buffered += text.length;
        if (buffered >= FLUSH_AT_CHARS) flushNow();
      },
      async close() {
        flushNow();
        await chain;
        try {
          await handle.close();
        } catch (error) {
          failure ??= refusalFrom(error, `close ${path}`, "write");
        }
        return failure ?? { ok: true, value: true };
      },
    },
  };
}
