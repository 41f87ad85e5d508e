/**
 * Property-based checks (fast-check) of the parsers and checkers that read what an engine or a result file says:
 * each target is one property, run a few hundred times by `deno task test` (properties_test.ts) and a million times
 * by `deno task fuzz` (fuzz.ts), which prints the counts.
 */
import fc from "fast-check";
import { SseParser } from "../../client/sse.ts";
import { HttpFramingError, ResponseDecoder } from "../../client/_http_response.ts";
import { parseStrictJson } from "../../score/strict_json.ts";
import { parseStrictJsonPlain } from "../../score/json_value.ts";
import { validateResult } from "../../report/validate.ts";
import { sanitizeJson, sanitizeText } from "../../sanitize/sanitize.ts";
import { parseProfile } from "../../engine/profile.ts";
import { loadBundle } from "../../fixtures/mod.ts";
import { CORPUS_CONTEXT, INNOCENT, PRIVATE } from "../unit/sanitize/_sanitizer_corpus.ts";

/** One fuzz target: a name and its property (sync or async). */
export interface Target {
  name: string;
  property: fc.IPropertyWithHooks<unknown[]> | fc.IAsyncPropertyWithHooks<unknown[]>;
}

const encoder = new TextEncoder();

/** Cut points of a byte array: sorted, unique positions strictly inside it. */
function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(from, point));
    from = point;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}

/** Everything an SSE parser reports for a stream fed in these pieces. */
function sseOutcome(pieces: Uint8Array[], maxLineBytes: number) {
  const events: string[] = [];
  let comments = 0;
  let foreign = 0;
  let error: string | null = null;
  const parser = new SseParser({
    onEvent: (data) => events.push(data),
    onComment: () => comments++,
    onForeignLine: () => foreign++,
    maxLineBytes,
  });
  try {
    for (const piece of pieces) parser.push(piece);
  } catch (error_) {
    if (!(error_ instanceof RangeError)) throw error_;
    error = "RangeError";
  }
  return { events, comments, foreign, error, pending: error === null ? parser.pending : null };
}

/** Text an SSE stream is made of: fields, comments, blank lines, every line ending, multibyte text and a BOM. */
const sseToken = fc.oneof(
  fc.constantFrom("data:", "data: ", "data", ":", ": ping", "event: x", "id: 1", "retry: 5", "\uFEFF", "[DONE]"),
  fc.constantFrom("\n", "\r", "\r\n", "\n\n", "\r\n\r\n"),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
);
const sseStream = fc.array(sseToken, { maxLength: 40 }).map((parts) => encoder.encode(parts.join("")));

const sse: Target = {
  name: "SSE parser: any split of any byte stream gives the same events as unsplit",
  property: fc.property(
    sseStream,
    fc.array(fc.nat(), { maxLength: 12 }),
    fc.constantFrom(8, 64, 1 << 20),
    (bytes, cuts, maxLineBytes) => {
      const whole = sseOutcome([bytes], maxLineBytes);
      const split = sseOutcome(splitAt(bytes, cuts), maxLineBytes);
      if (whole.error !== null || split.error !== null) {
        // A line over the limit is refused however it is split (it may be seen at another cut).
        return whole.error !== null && split.error !== null;
      }
      return JSON.stringify(whole) === JSON.stringify(split);
    },
  ),
};

/** A body encoded with chunked transfer coding: random chunk sizes, optional extensions and trailers. */
function chunked(body: Uint8Array, sizes: number[], extensions: boolean, trailer: boolean): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  let i = 0;
  while (at < body.length) {
    const size = Math.max(1, Math.min(body.length - at, sizes[i++ % Math.max(1, sizes.length)] ?? 1));
    parts.push(encoder.encode(`${size.toString(16)}${extensions ? ";ext=1" : ""}\r\n`), body.subarray(at, at + size));
    parts.push(encoder.encode("\r\n"));
    at += size;
  }
  parts.push(encoder.encode(`0\r\n${trailer ? "X-T: 1\r\n" : ""}\r\n`));
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let pos = 0;
  for (const part of parts) {
    all.set(part, pos);
    pos += part.length;
  }
  return all;
}

function decodeAll(pieces: Uint8Array[]): { body: number[]; done: boolean } {
  const body: number[] = [];
  const decoder = new ResponseDecoder({ head: () => {}, body: (bytes) => body.push(...bytes) });
  for (const piece of pieces) decoder.feed(piece);
  return { body, done: decoder.done };
}

const HEAD = encoder.encode("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n");

const chunkedDecoder: Target = {
  name: "chunked decoder: any chunking and any split of the wire give the body; garbage is only HttpFramingError",
  property: fc.property(
    fc.uint8Array({ maxLength: 300 }),
    fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 }),
    fc.boolean(),
    fc.boolean(),
    fc.array(fc.nat(), { maxLength: 10 }),
    fc.uint8Array({ maxLength: 200 }),
    (body, sizes, extensions, trailer, cuts, garbage) => {
      const wire = new Uint8Array([...HEAD, ...chunked(body, sizes, extensions, trailer)]);
      const decoded = decodeAll(splitAt(wire, cuts));
      if (!decoded.done || decoded.body.length !== body.length) return false;
      if (!decoded.body.every((byte, i) => byte === body[i])) return false;
      try {
        decodeAll(splitAt(new Uint8Array([...HEAD, ...garbage]), cuts));
        decodeAll(splitAt(garbage, cuts));
      } catch (error) {
        if (!(error instanceof HttpFramingError)) throw error;
      }
      return true;
    },
  ),
};

/** Text near JSON: valid documents, their mutations (duplicates, commas, comments, numbers), and any string. */
const jsonish = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.json({ maxDepth: 3 }).chain((text) =>
    fc.tuple(fc.nat(text.length), fc.constantFrom(",", "}", "]", "//", "01", "1e999", "NaN", '"a":1,"a":1', "\uFEFF"))
      .map(([at, insert]) => text.slice(0, at) + insert + text.slice(at))
  ),
  fc.string({ maxLength: 40 }),
);

const strictJson: Target = {
  name: "strict JSON: agrees with JSON.parse on valid input without duplicates, accepts nothing JSON.parse refuses",
  property: fc.property(jsonish, (text) => {
    const strict = parseStrictJson(text); // never throws: it returns a result
    let parsed: { ok: true; value: unknown } | { ok: false };
    try {
      parsed = { ok: true, value: JSON.parse(text) };
    } catch {
      parsed = { ok: false };
    }
    if (strict.ok) {
      if (!parsed.ok) return false;
      const plain = parseStrictJsonPlain(text);
      return plain.ok && JSON.stringify(plain.value) === JSON.stringify(parsed.value);
    }
    // Rejected although JSON.parse takes it: only for what the spec rejects and JSON.parse lets through.
    if (!parsed.ok) return true;
    return /^(duplicate key|number .* is too large|unpaired surrogate|nesting deeper)/.test(strict.reason);
  }),
};

let validatorFacts: Record<string, number> | null = null;
let realistic: unknown = null;

/** A value shaped like a result at the top, with any JSON below; or a realistic result with one part replaced. */
function resultLike(): fc.Arbitrary<unknown> {
  const anyJson = fc.jsonValue({ maxDepth: 4 });
  const keys = [
    "format",
    "schema_version",
    "protocol",
    "run",
    "hardware",
    "software",
    "model",
    "configuration",
    "request_counts",
    "requests",
    "summaries",
    "concurrency_rounds",
    "quality",
    "artifacts",
    "missing",
    "extensions",
  ];
  const shaped = fc.dictionary(fc.constantFrom(...keys, "__proto__", "x"), anyJson, { maxKeys: 16 });
  const mutated = fc.tuple(
    fc.array(fc.oneof(fc.constantFrom(...keys), fc.nat(40).map(String)), { maxLength: 4 }),
    anyJson,
  )
    .map(([path, replacement]) => {
      const copy = structuredClone(realistic) as Record<string, unknown>;
      let node: unknown = copy;
      for (const [i, key] of path.entries()) {
        if (node === null || typeof node !== "object") break;
        if (i === path.length - 1) (node as Record<string, unknown>)[key] = replacement;
        else node = (node as Record<string, unknown>)[key];
      }
      return copy;
    });
  return fc.oneof(anyJson, shaped, mutated);
}

const validator: Target = {
  name: "result validator: never throws on any value, always answers with a bounded list of problems",
  property: fc.asyncProperty(fc.constant(null).chain(() => resultLike()), async (value) => {
    const problems = await validateResult(value, { maxSharedPrefixTokens: validatorFacts! });
    return Array.isArray(problems) && problems.length <= 501;
  }).beforeEach(async () => {
    if (validatorFacts === null) {
      const bundle = await loadBundle();
      validatorFacts = Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.max_shared_prefix_tokens]));
      const { buildRealisticResult } = await import("../unit/report/_realistic_result.ts");
      const built = await buildRealisticResult();
      realistic = built.result;
      await built.cleanup();
    }
  }),
};

const profileText = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.json({ maxDepth: 3 }),
  fc.record({
    label: fc.oneof(fc.string(), fc.constant("${tiny_qwen3}"), fc.constant("${__proto__}"), fc.constant("${env:HOME}")),
    engine: fc.oneof(fc.string(), fc.constant("${llama_server}"), fc.constant("${toString}")),
    args: fc.oneof(fc.array(fc.string(), { maxLength: 4 }), fc.jsonValue()),
    host: fc.oneof(fc.constantFrom("127.0.0.1", "::1", "localhost", "10.0.0.1", "[::1]"), fc.string()),
    port: fc.oneof(fc.integer({ min: -5, max: 70000 }), fc.jsonValue()),
  }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
);

const profile: Target = {
  name: "profile parser: a profile or a SyntaxError, nothing else, and no placeholder resolves to an inherited name",
  property: fc.property(profileText, (text) => {
    try {
      const parsed = parseProfile(text, "fuzz", { vars: { llama_server: "/x/llama-server" }, env: () => undefined });
      return !JSON.stringify(parsed).includes("[native code]");
    } catch (error) {
      if (error instanceof SyntaxError) return true;
      throw error;
    }
  }),
};

/** Text mixing corpus lines (private and innocent), arbitrary text and separators. */
const sanitizerText = fc.array(
  fc.oneof(
    fc.constantFrom(...PRIVATE.map((c) => c.line)),
    fc.constantFrom(...INNOCENT),
    fc.string({ maxLength: 16 }),
    fc.constantFrom(" ", "\n", "\t", ", ", "; ", "(", ")", '"', "'", "=", ":", "/", "\\", "@", "<", ">"),
  ),
  { maxLength: 8 },
).map((parts) => parts.join(""));

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) count++;
  return count;
}

const sanitizer: Target = {
  name: "sanitizer: idempotent, and never makes a private string appear more often than in its input",
  property: fc.property(sanitizerText, (text) => {
    const once = sanitizeText(text, CORPUS_CONTEXT);
    if (sanitizeText(once, CORPUS_CONTEXT) !== once) return false;
    const json = sanitizeJson({ [text]: [text, { text }] }, CORPUS_CONTEXT);
    if (JSON.stringify(sanitizeJson(json, CORPUS_CONTEXT)) !== JSON.stringify(json)) return false;
    const lower = text.toLowerCase();
    const onceLower = once.toLowerCase();
    return PRIVATE.every(({ secret }) =>
      occurrences(onceLower, secret.toLowerCase()) <= occurrences(lower, secret.toLowerCase())
    );
  }),
};

/** Every target, in the order the fuzz run prints them. */
export const TARGETS: readonly Target[] = [sse, chunkedDecoder, strictJson, validator, profile, sanitizer];
