/**
 * The written form of an evidence line (evidence version 5), and its reading back into the line every check reads.
 * Three things are written smaller than the run holds them, each exactly:
 * - A request of the frozen bundle is written by reference: `request` keeps every field of the body sent except
 *   `messages`, and `request_ref` names the bundle, the SHA-256 of the fixture file the messages come from, and the
 *   SHA-256 of the exact body bytes sent. A judge with the bundle rebuilds the body and checks both hashes. A body
 *   whose messages are not the fixture's (or whose other fields redaction changed) keeps its messages and has no
 *   reference.
 * - Chunk stamps are whole microseconds (the client keeps them so), written as `chunk_offsets_us` and
 *   `reasoning_chunk_offsets_us`: the first stamp, then each stamp's difference from the one before.
 * - A timings chunk that is the usage chunk (llama-server sends both in its last chunk) is written once:
 *   `timings_in_usage_chunk: true` stands for a `timings_chunk` equal to `usage_chunk`.
 */
import type { ChatMessage, Fixture } from "./fixture.ts";
import { sha256Hex } from "./sha256.ts";

/** The name of the frozen request bundle every standard run sends (the builder writes it into build.json). */
export const BUNDLE_NAME = "standard-v1";

/** How a line names the fixture its messages come from and the exact body sent. */
export interface RequestRef {
  bundle: string;
  fixture_sha256: string;
  body_sha256: string;
}

/** The stamp lists a line holds in seconds and writes in microseconds (the run's name -> the written name). */
export const STAMP_LISTS = {
  chunk_offsets_s: "chunk_offsets_us",
  reasoning_chunk_offsets_s: "reasoning_chunk_offsets_us",
} as const;

/** The messages of a fixture as a request sends them. */
export function fixtureMessages(fixture: Fixture): ChatMessage[] {
  return fixture.messages.map((m) => ({ role: m.role, content: m.content }));
}

/** The SHA-256 of a fixture's file, from the fixture as read (the bundle writes two-space JSON and a newline). */
export function fixtureFileSha256(fixture: Fixture): string {
  return sha256Hex(`${JSON.stringify(fixture, null, 2)}\n`);
}

/** The body rebuilt from a fixture and the other fields a line kept, in the order the run sends them. */
function rebuiltBody(fixture: Fixture, rest: Record<string, unknown>): Record<string, unknown> {
  return { messages: fixtureMessages(fixture), ...rest };
}

/** A stamp in seconds as whole microseconds. @throws {RangeError} when it is not a whole microsecond. */
function micros(seconds: number): number {
  const us = Math.round(seconds * 1e6);
  if (us / 1e6 !== seconds) throw new RangeError(`a chunk stamp of ${seconds} s is not a whole microsecond`);
  return us;
}

/**
 * The line as written: `line` (sanitized, as report/publish.ts made it) with the reference in place of the frozen
 * messages where `sent` (the body as sent and the fixture it was built from) allows, and the stamps in microseconds.
 * @throws {RangeError} when a stamp is not a whole microsecond (the client keeps every stamp so).
 */
export function writtenLine(
  line: Record<string, unknown>,
  sent: { body: Record<string, unknown>; fixture: Fixture } | null,
): Record<string, unknown> {
  if (line["status"] === "skipped") return line;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(line)) {
    if (key === "timings_chunk" && typeof value === "string" && value === line["usage_chunk"]) {
      out[SAME_CHUNK] = true;
      continue;
    }
    if (key in STAMP_LISTS && Array.isArray(value)) {
      const us = value.map((s) => micros(s as number));
      out[STAMP_LISTS[key as keyof typeof STAMP_LISTS]] = us.map((v, i) => (i === 0 ? v : v - us[i - 1]!));
      continue;
    }
    out[key] = value;
    if (key !== "request" || sent === null || value === null || typeof value !== "object") continue;
    const { messages: _, ...rest } = value as Record<string, unknown>;
    const text = JSON.stringify(sent.body);
    if (JSON.stringify(rebuiltBody(sent.fixture, rest)) !== text) continue;
    out[key] = rest;
    const ref: RequestRef = {
      bundle: BUNDLE_NAME,
      fixture_sha256: fixtureFileSha256(sent.fixture),
      body_sha256: sha256Hex(text),
    };
    out["request_ref"] = ref;
  }
  return out;
}

const HEX64 = /^[0-9a-f]{64}$/;
const SAME_CHUNK = "timings_in_usage_chunk";

function refProblem(ref: unknown, request: unknown, fixture: Fixture | null): string | null {
  if (ref === null || typeof ref !== "object" || Array.isArray(ref)) return "request_ref must be an object";
  const { bundle, fixture_sha256: file, body_sha256: body, ...extra } = ref as Record<string, unknown>;
  if (Object.keys(extra).length > 0) return `request_ref has unknown field ${JSON.stringify(Object.keys(extra)[0])}`;
  if (bundle !== BUNDLE_NAME) return `request_ref names the bundle ${JSON.stringify(bundle)}, not "${BUNDLE_NAME}"`;
  if (typeof file !== "string" || !HEX64.test(file) || typeof body !== "string" || !HEX64.test(body)) {
    return "request_ref's fixture_sha256 and body_sha256 must be lowercase hex SHA-256 digests";
  }
  if (request === null || typeof request !== "object" || Array.isArray(request)) return "request must be an object";
  if (Object.hasOwn(request, "messages")) return "a line with request_ref must not also carry request.messages";
  if (fixture === null) return null;
  if (file !== fixtureFileSha256(fixture)) {
    return `request_ref's fixture_sha256 is not that of the bundle's ${fixture.id}.json`;
  }
  if (sha256Hex(JSON.stringify(rebuiltBody(fixture, request as Record<string, unknown>))) !== body) {
    return `request_ref's body_sha256 is not that of the body rebuilt from ${fixture.id}.json and request`;
  }
  return null;
}

/** A written stamp list in seconds, or why it cannot be read. */
function stampsOf(name: string, value: unknown): number[] | string {
  if (!Array.isArray(value) || !value.every(Number.isSafeInteger)) return `${name} must be an array of integers`;
  let at = 0;
  return value.map((d: number) => (at += d) / 1e6);
}

/**
 * The line as the checks read it, from the line as written: the frozen messages back in `request` (the fixture's,
 * both hashes checked) and the stamps in seconds; or why the written form is broken. `fixture` is the bundle's
 * fixture of the line's request; null where there is none to read (no bundle, or a request the bundle does not
 * have, which the checks of ids report): the messages are then not restored and the hashes not checked.
 */
export function readWrittenLine(
  fields: Record<string, unknown>,
  fixture: Fixture | null,
): Record<string, unknown> | string {
  if (fields["status"] === "skipped") return fields;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key in STAMP_LISTS) return `evidence version 5 writes ${key} as ${STAMP_LISTS[key as "chunk_offsets_s"]}`;
    if (key === SAME_CHUNK) {
      if (value !== true || typeof fields["usage_chunk"] !== "string" || Object.hasOwn(fields, "timings_chunk")) {
        return `${SAME_CHUNK} must be true, beside a usage_chunk text and no timings_chunk`;
      }
      out["timings_chunk"] = fields["usage_chunk"];
      continue;
    }
    const seconds = Object.entries(STAMP_LISTS).find(([, written]) => written === key)?.[0];
    if (seconds !== undefined) {
      const stamps = stampsOf(key, value);
      if (typeof stamps === "string") return stamps;
      out[seconds] = stamps;
    } else if (key !== "request_ref") out[key] = value;
  }
  if (!Object.hasOwn(fields, "request_ref")) return out;
  const problem = refProblem(fields["request_ref"], fields["request"], fixture);
  if (problem !== null) return problem;
  if (fixture !== null) out["request"] = rebuiltBody(fixture, fields["request"] as Record<string, unknown>);
  return out;
}
