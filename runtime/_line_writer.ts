/**
 * A text file written as it grows: lines are buffered and appended in order by one background chain of writes,
 * so a long run keeps no more than the buffer in memory and a crash keeps what was already written. Never throws:
 * the first failure is kept, later writes are dropped, and `close` reports it.
 */
import { type FileHandle, unlink } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { outputRefusal } from "./_file_access.ts";
import { openFolderWriter } from "./_folder_writer.ts";
import { type Outcome, refusalFrom } from "./_refusal.ts";

/** An open line-oriented output file. */
export interface LineWriter {
  /**
   * Queues text (the caller adds newlines); flushed in the background once the buffer is full. Each call is encoded
   * as UTF-8 on its own: write whole lines (a surrogate pair split across two calls is not joined).
   */
  write(text: string): void;
  /** Writes what is buffered, waits for every queued write, and closes; the outcome of the whole file. */
  close(): Promise<Outcome<true>>;
  /** Closes without writing what is buffered and removes the file: it was created for lines that never came. */
  discard(): Promise<void>;
}

/**
 * Bytes a buffer holds before it is handed to the write chain. Each line is encoded into it at once, so the line's
 * string dies young: buffered strings outlived several young-generation collections, and copying them into the old
 * generation was a large part of what those collections cost (`load` at 2,000 arrivals/s wrote ~3 MB of lines a
 * second); the bytes sit outside the JavaScript heap.
 */
const BUFFER_BYTES = 256 * 1024;

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
  let buffer = new Uint8Array(BUFFER_BYTES);
  let used = 0;
  let chain: Promise<void> = Promise.resolve();
  let failure: Outcome<true> | null = null;
  const encoder = new TextEncoder();
  const writeAll = (bytes: Uint8Array) => {
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
  const flushNow = () => {
    if (used === 0) return;
    writeAll(buffer.subarray(0, used));
    buffer = new Uint8Array(BUFFER_BYTES);
    used = 0;
  };
  return {
    ok: true,
    value: {
      write(text) {
        // At most 3 bytes a UTF-16 unit: a text that may not fit goes after what is buffered, in a buffer of its own
        // when it is that large.
        if (used + text.length * 3 > buffer.length) flushNow();
        if (text.length * 3 > buffer.length) return writeAll(encoder.encode(text));
        used += encoder.encodeInto(text, buffer.subarray(used)).written;
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
      async discard() {
        used = 0;
        await chain;
        await handle.close().catch(() => {});
        await unlink(path).catch(() => {});
      },
    },
  };
}
