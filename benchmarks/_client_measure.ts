/** Measurement helpers of the client benchmark: clock calibration and the SSE server's send log. */

/**
 * Offset (ms) such that epoch ms = performance.now() + offset. Date.now() ticks once per millisecond, so the
 * monotonic clock is read right at several ticks; single readings jitter by up to a millisecond, so the median of
 * the readings is kept.
 */
export function calibrateEpochOffsetMs(ticks = 31): number {
  const offsets: number[] = [];
  for (let i = 0; i < ticks; i++) {
    const start = Date.now();
    let now = Date.now();
    let mono = performance.now();
    while (now === start) {
      mono = performance.now();
      now = Date.now();
    }
    // The tick happened between the previous monotonic read and this one.
    offsets.push(now - mono);
  }
  offsets.sort((a, b) => a - b);
  return offsets[offsets.length >> 1]!;
}

/**
 * Reads sse_server's binary log: per request `"SSE2"`, uint32 n, char rid[56], int64 t_req, int64 pre[n+6],
 * int64 post[n+6] (little endian, epoch microseconds). Pieces: headers, role, content[0..n-1], finish, usage, done,
 * terminator. Returns rid -> post-send time of the first content piece, in epoch microseconds.
 */
export function parseSendLog(bytes: Uint8Array): Map<string, number> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder();
  const sent = new Map<string, number>();
  let at = 0;
  while (at + 72 <= bytes.length) {
    const magic = decoder.decode(bytes.subarray(at, at + 4));
    if (magic !== "SSE2") throw new SyntaxError(`Cannot read the send log: bad record magic at byte ${at}`);
    const n = view.getUint32(at + 4, true);
    const ridBytes = bytes.subarray(at + 8, at + 64);
    const zero = ridBytes.indexOf(0);
    const rid = decoder.decode(zero === -1 ? ridBytes : ridBytes.subarray(0, zero));
    const pieces = n + 6;
    const postStart = at + 72 + pieces * 8;
    if (n > 0) sent.set(rid, Number(view.getBigInt64(postStart + 2 * 8, true)));
    at = postStart + pieces * 8;
  }
  return sent;
}
