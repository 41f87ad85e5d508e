/**
 * The sanitizer corpus through a real run: a hostile engine puts every private string of the corpus into answers,
 * reasoning, tool arguments, error bodies, /props (chat template, model alias) and /slots; the run gets more through
 * its engine log and its configuration (track notes, background, model id). Every file the run writes is then read
 * as raw bytes, as every decoded JSON string (keys included) and, for README.md, with Markdown's escapes undone:
 * no private string may survive, and every innocent look-alike the answers carried must come through unchanged.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { scheduleIds } from "../../contract/mod.ts";
import { createSanitizer } from "../../sanitize/sanitize.ts";
import { CORPUS_CONTEXT, INNOCENT, PRIVATE } from "../unit/sanitize/_sanitizer_corpus.ts";
import { LOG_INNOCENT, LOG_PRIVATE } from "../unit/sanitize/_sanitizer_corpus_logs.ts";
import type { AnswerText } from "./_hostile_engine.ts";
import { runHostile, sharedBundle } from "./_run.ts";
import { reviewFolder } from "../../review/mod.ts";
import { folderReader, KNOWN_PROTOCOLS } from "../../site/mod.ts";

/** Every string in a JSON value: keys and string values, at any depth. */
function decodedStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) { for (const item of value) decodedStrings(item, out); }
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      decodedStrings(item, out);
    }
  }
  return out;
}

/** Every way a reader can see a file: its raw text, its decoded JSON strings, Markdown without its escapes. */
function views(name: string, text: string): string[] {
  const seen = [text];
  if (name.endsWith(".json")) seen.push(...decodedStrings(JSON.parse(text)));
  if (name.endsWith(".jsonl")) {
    for (const line of text.split("\n").filter((l) => l !== "")) seen.push(...decodedStrings(JSON.parse(line)));
  }
  if (name.endsWith(".md")) seen.push(text.replace(/\\([!-/:-@[-`{-~])/g, "$1"));
  return seen;
}

Deno.test("sanitizer corpus through a run: 0 private strings survive in any written file, 0 innocent ones change", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-corpus-" });
  try {
    const ids = scheduleIds(false).filter((id) => id !== "warmup");
    const lines = PRIVATE.map((c) => c.line);
    // Private strings spread over answers, reasoning, tool arguments and error bodies, three lines a request.
    const answers: Record<string, AnswerText> = {};
    const errors: Record<string, string> = {};
    const byRequest = (i: number) => lines.filter((_, n) => n % ids.length === i);
    const answering = ids.filter((_, i) => i % 7 !== 6);
    ids.forEach((id, i) => {
      const mine = byRequest(i);
      const innocent = INNOCENT.filter((_, n) => n % answering.length === answering.indexOf(id));
      if (i % 7 === 6) {
        errors[id] = mine.join(" | ");
        return;
      }
      answers[id] = {
        reasoning: mine.filter((_, n) => n % 3 === 0).join("\n"),
        answer: [...mine.filter((_, n) => n % 3 === 1), ...innocent].join("\n"),
        ...(i % 2 === 0 ? { toolArguments: JSON.stringify({ id: mine.filter((_, n) => n % 3 === 2).join(" ") }) } : {}),
      };
      if (i % 2 !== 0) answers[id]!.answer += `\n${mine.filter((_, n) => n % 3 === 2).join("\n")}`;
    });
    const run = await runHostile(
      dir,
      {
        answers,
        errors,
        props: { chat_template: `{# ${lines.slice(0, 40).join("\n")} #}{{ messages }}`, model_alias: lines[3] },
        slots: [{ id: PRIVATE.find((c) => c.category === "email")?.line, id_task: 3, n_ctx: 32768 }],
      },
      {
        trackNotes: lines.slice(40, 60).join("; "),
        // The engine log carries both corpora and the innocent log lines (first: an unterminated private-key block
        // in the corpus is redacted to the end of the text).
        engineLog: () => [...LOG_INNOCENT, ...LOG_PRIVATE.map((c) => c.line), ...lines].join("\n"),
        declared: {
          modelId: lines[5]!,
          modelRevision: "rev1",
          sourceRevision: "src1",
          tokenizerRevision: "tok1",
          quantization: "Q4_K_M",
          customPack: lines[7]!,
          background: lines.slice(60, 70),
          buildOptions: lines.slice(70, 75),
          engineCommit: "80fb11a0000000000000000000000000000000aa",
        },
      },
      { sanitizers: createSanitizer(CORPUS_CONTEXT) },
    );
    const names = await readdir(run.folder);
    for (
      const expected of ["results.json", "outputs.jsonl", "config.json", "engine.log", "template.jinja", "README.md"]
    ) {
      assert.ok(names.includes(expected), `${expected} was not written`);
    }
    const seen: string[] = [];
    for (const name of names) seen.push(...views(name, await readFile(join(run.folder, name), "utf8")));
    const lowered = seen.map((s) => s.toLowerCase());
    const survivors = [...PRIVATE, ...LOG_PRIVATE].filter(({ secret }) =>
      lowered.some((s) => s.includes(secret.toLowerCase()))
    );
    assert.deepEqual(survivors.map((s) => `${s.category}: ${s.secret}`), [], "private strings survived");
    const answerStrings = run.lines.flatMap((
      line,
    ) => [String(line["final_answer"] ?? ""), String(line["reasoning_text"] ?? "")]);
    const changed = INNOCENT.filter((text) => !answerStrings.some((s) => s.includes(text)));
    assert.deepEqual(changed, [], "innocent strings changed");
    const log = await readFile(join(run.folder, "engine.log"), "utf8");
    assert.deepEqual(LOG_INNOCENT.filter((text) => !log.includes(text)), [], "innocent log lines changed");
    // The review's redaction judge (the sanitizer again, without this machine's names) finds nothing to redact.
    const resultsBytes = await Deno.readFile(join(run.folder, "results.json"));
    const read = folderReader(run.folder);
    const verdict = await reviewFolder(
      {
        folder: "corpus-run",
        resultsBytes,
        read,
        list: read.list ?? (() => Promise.resolve(null)),
        expected: { resultsSha256: "", runId: run.result.run.id, protocolId: run.result.protocol.id },
      },
      KNOWN_PROTOCOLS,
      await sharedBundle(),
    );
    assert.deepEqual(verdict.judgements.find((j) => j.judge === "redaction")?.problems, []);
    // The strings did reach the folder: the sanitizer, not an empty run, removed them.
    assert.ok(answerStrings.join("").includes("<secret>") && answerStrings.join("").includes("<home>"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
