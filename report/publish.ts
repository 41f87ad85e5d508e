/**
 * Publishing redacts, and redaction must never change a verdict or a count. The run scores every request on the
 * text as the engine sent it (score/'s record); what it publishes is that record with its free text redacted,
 * and an evidence line that is the request's facts redacted. `report` rebuilds each record from the redacted line,
 * so wherever redaction touched text a value was computed from (a sanity answer that names the host, an error
 * message with a home folder, a reason that quoted a private address), the rebuilt value could differ from the
 * published one. The line then states the published value explicitly (`record_overrides`, JSON Pointer -> value),
 * `report` applies it, and results.json lists which values were stated so (`extensions.record_overrides`).
 *
 * Nothing here assumes what a sanitizer redacts, that it keeps lengths, or that it is idempotent: every published
 * text is sanitized exactly once, the line is compared with the record it will rebuild to, and the evidence is
 * written as compared. Protocol words of the line (ids, status, stream end, delta kind) are the runner's own
 * vocabulary, never engine text, and are kept as they are.
 */
import {
  type EvidenceLine,
  type ExecutedRequest,
  type Fixture,
  type Result,
  SENT_LINE_SCHEMA,
  writtenLine,
} from "../contract/mod.ts";
import type { SchemaNode } from "./_contract_check.ts";
import type { BuiltRecord, ConfigCheck, ScoredRecord } from "../score/mod.ts";
import { configCheckOf, lineFacts, rebuildRecord, valueAt } from "./_evidence_line.ts";
import { leafDifferences } from "./_difference.ts";
import { outputLine, type Sanitizers } from "./result_folder.ts";

/** What one request contributes to the folder: its evidence line as written, and its record as published. */
export interface PublishedRequest {
  /** The sanitized outputs.jsonl line in its written form, with `record_overrides` where needed; write it as it is. */
  line: Record<string, unknown>;
  /** The record results.json holds (free text sanitized), with the scored record's missing reasons and flags. */
  built: BuiltRecord;
  /** Pointers of the record values the line states explicitly (empty when redaction changed nothing). */
  overridden: string[];
  /** Whether the engine ran the request as sent, from the line as published (null: never sent). */
  config: ConfigCheck | null;
}

/** Finish reasons of the protocol's vocabulary: kept as they are. Any other is engine text and is sanitized. */
const PROTOCOL_FINISH_REASONS = new Set(["stop", "length", "tool_calls"]);

/** Whether a schema node admits no free text: numbers, booleans, constants, enums, and objects or arrays of them. */
function holdsNoText(node: SchemaNode): boolean {
  const anyOf = node["anyOf"];
  if (Array.isArray(anyOf)) return anyOf.every(holdsNoText);
  if ("const" in node || Array.isArray(node["enum"])) return true;
  switch (node["type"]) {
    case "number":
    case "integer":
    case "boolean":
    case "null":
      return true;
    case "array":
      return holdsNoText(node["items"] as SchemaNode);
    case "object":
      return node["patternProperties"] === undefined &&
        Object.values(node["properties"] as Record<string, SchemaNode>).every(holdsNoText);
    default:
      return false;
  }
}

/**
 * Line fields that hold the runner's own words or numbers, never engine text: every field of the evidence schema
 * that admits no free text, and the request id (a fixture's id).
 */
const LINE_VOCABULARY: ReadonlySet<string> = new Set([
  "request_id",
  ...Object.entries((JSON.parse(JSON.stringify(SENT_LINE_SCHEMA)) as SchemaNode)["properties"] as object)
    .filter(([, node]) => holdsNoText(node as SchemaNode)).map(([key]) => key),
]);

/** Why a line carries record_overrides, written into the line next to them. */
export const RECORD_OVERRIDES_WHY = "redaction changed text these record values were computed from; they are the " +
  "values scored on the text as the engine sent it";

/** The record with every text that can carry engine words sanitized once; numbers and protocol words unchanged. */
function publishedRecord(record: ScoredRecord, text: (value: string) => string): ScoredRecord {
  return {
    ...record,
    finish_reason: record.finish_reason === null || PROTOCOL_FINISH_REASONS.has(record.finish_reason)
      ? record.finish_reason
      : text(record.finish_reason),
    error: record.error === null ? null : { kind: record.error.kind, message: text(record.error.message) },
    token_accounting_note: record.token_accounting_note === null ? null : text(record.token_accounting_note),
    evaluation: record.evaluation === null ? null : { ...record.evaluation, reason: text(record.evaluation.reason) },
  };
}

/**
 * The line redacted field by field (its own field names and vocabulary kept), as the bytes `report` will read: a
 * JSON round trip.
 */
function sanitizedLine(original: EvidenceLine, sanitizers: Sanitizers): Record<string, unknown> {
  const line: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(original)) {
    const protocolWord = key === "finish_reason" && typeof value === "string" && PROTOCOL_FINISH_REASONS.has(value);
    line[key] = LINE_VOCABULARY.has(key) || protocolWord ? value : sanitizers.json(value);
  }
  const error = "error" in original ? original.error : null;
  if (error) line["error"] = { kind: error.kind, message: sanitizers.text(error.message) };
  return JSON.parse(JSON.stringify(line)) as Record<string, unknown>;
}

/**
 * The evidence line and the published record of one request that ended (or was skipped), consistent with each
 * other: the record `report` rebuilds from the line equals the published record.
 */
export function publishRequest(
  request: ExecutedRequest,
  scored: BuiltRecord,
  fixture: Fixture,
  sanitizers: Sanitizers,
): PublishedRequest {
  const record = publishedRecord(scored.record, sanitizers.text);
  const line = sanitizedLine(outputLine(request, scored.record.status), sanitizers);
  let differing: string[];
  const facts = lineFacts(line);
  const config = typeof facts === "string" ? null : configCheckOf(facts);
  if (typeof facts === "string") {
    differing = [""];
  } else {
    try {
      differing = leafDifferences(rebuildRecord(fixture, facts, {}, request.concurrency), record);
    } catch {
      differing = [""];
    }
  }
  if (differing.length > 0) {
    line["record_overrides"] = Object.fromEntries(
      differing.map((pointer) => [pointer, pointer === "" ? record : valueAt(record, pointer)]),
    );
    line["record_overrides_why"] = RECORD_OVERRIDES_WHY;
  }
  const sent = request.kind === "skipped" ? null : { body: request.body, fixture };
  return { line: writtenLine(line, sent), built: { ...scored, record }, overridden: differing, config };
}

/**
 * The whole result sanitized for publication, except the parts built from already published records (requests,
 * summaries): sanitizing those a second time could make them differ from what the evidence rebuilds.
 */
export function sanitizeResult(result: Result, sanitizers: Sanitizers): Result {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    if (key === "requests" || key === "summaries") out[key] = value;
    else if (key === "missing") {
      // Pointers are the runner's own; only the reasons can carry engine or machine text.
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, string>).map(([pointer, reason]) => [pointer, sanitizers.text(reason)]),
      );
    } else out[key] = sanitizers.json(value);
  }
  return out as Result;
}
