import assert from "node:assert/strict";
import { LINE_VERSIONS, LoadLines, MAX_LOAD_LINE_BYTES } from "../../../load/load_lines.ts";
import { buildLoadRow, LOAD_REQUEST_FORMAT } from "../../../load/metrics.ts";
import { LOAD_RUN_FORMAT } from "../../../load/load_run.ts";
import { outcome, sample } from "./_fakes.ts";

const CONFIG = JSON.stringify({ format: LOAD_RUN_FORMAT, version: LINE_VERSIONS[LOAD_RUN_FORMAT], kind: "config" });

function row(index: number): Record<string, unknown> {
  const o = outcome({ endS: 1.5, headersS: 0.04, firstDeltaS: 0.25, completionTokens: 11 });
  return { run: 0, ...buildLoadRow(sample(o, { index })) };
}

const bytes = (text: string) => new TextEncoder().encode(text);

/** Reads text (or bytes) both ways, in memory and in chunks of `chunk` bytes; both must agree. */
async function read(input: string | Uint8Array, chunk = 7): Promise<{ problems: string[]; seen: number[] }> {
  const data = typeof input === "string" ? bytes(input) : input;
  const seen: number[] = [];
  const inMemory = new LoadLines((_v, n) => void seen.push(n));
  inMemory.readBytes(data);
  let at = 0;
  const chunked = new LoadLines(() => {});
  await chunked.readFrom({
    read(buffer) {
      const n = Math.min(chunk, data.length - at, buffer.length);
      buffer.set(data.subarray(at, at + n));
      at += n;
      return Promise.resolve(n);
    },
  });
  assert.deepEqual(chunked.problems, inMemory.problems);
  return { problems: inMemory.problems, seen };
}

Deno.test("a load JSONL as load writes it passes every line, in memory and read in chunks split inside lines", async () => {
  const text = [CONFIG, JSON.stringify(row(0)), JSON.stringify(row(1))].join("\n") + "\n";
  const { problems, seen } = await read(text, 5);
  assert.deepEqual(problems, []);
  assert.deepEqual(seen, [1, 2, 3]);
});

Deno.test("each broken line is refused with its number and rule; the good lines around it still pass", async () => {
  const good = JSON.stringify(row(0));
  const cases: [string | Uint8Array, RegExp][] = [
    [`${good}\n`, /^line 1: the first line is not a load or compare config line/],
    [`${CONFIG}\n${CONFIG}\n`, /^line 2: a second config line$/],
    [`${CONFIG}\n{"format":"strata-load-other","version":1}\n`, /^line 2: format "strata-load-other" is not a load/],
    [`${CONFIG}\n${good.replace(/"version":\d+/, '"version":99')}\n`, /^line 2: strata-load-request version 99; this/],
    [`${CONFIG}\n${good.replace("{", '{"status":"success",')}\n`, /^line 2: not strict JSON \(duplicate key/],
    [
      `${CONFIG}\n${good.replace('"phase":"measure"', '"phase":"later"')}\n`,
      /^line 2: \/phase: not a value this format allows$/,
    ],
    [`${CONFIG}\n${good.replace(/"latency_s":[0-9.e-]+/, '"latency_s":-1')}\n`, /^line 2: latency_s: -1 is negative/],
    [`${CONFIG}\n${good.replace(/"index":\d+/, '"index":"0"')}\n`, /^line 2: \/index: must be integer$/],
    [`${CONFIG}\n${good}`, /^line 2: the last line is cut/],
    ["", /^the file is empty/],
    [`${CONFIG}\n[1]\n`, /^line 2: not an object with a format/],
  ];
  for (const [input, rule] of cases) {
    const { problems } = await read(input);
    assert.equal(problems.length, 1, `${JSON.stringify(problems)} for ${String(input).slice(0, 60)}`);
    assert.match(problems[0]!, rule);
  }
  const broken = new Uint8Array([...bytes(`${CONFIG}\n{"format":"`), 0xff, 0xfe, ...bytes(`"}\n${good}\n`)]);
  const { problems, seen } = await read(broken);
  assert.deepEqual(problems, ["line 2: not UTF-8 text"]);
  assert.deepEqual(seen, [1, 3]);
});

Deno.test("a line past the cap is refused without being held whole, and a reader's own rule is kept by line", async () => {
  const long = bytes(`${CONFIG}\n"${"x".repeat(MAX_LOAD_LINE_BYTES + 10)}"\n`);
  const { problems } = await read(long, 1 << 20);
  assert.deepEqual(problems, [`line 2: longer than ${MAX_LOAD_LINE_BYTES} bytes`]);
  const own = new LoadLines((
    v,
  ) => (v.format === LOAD_REQUEST_FORMAT ? "a request row in a compare result" : undefined));
  own.readBytes(bytes(`${CONFIG}\n${JSON.stringify(row(0))}\n`));
  assert.deepEqual(own.problems, ["line 2: a request row in a compare result"]);
});

Deno.test("a skipped line is counted unread, so the lines after it keep their numbers", () => {
  const lines = new LoadLines(() => {}, { skip: (text) => text.startsWith('{"run"') });
  lines.readBytes(bytes(`${CONFIG}\n${JSON.stringify({ ...row(0), latency_s: -1 })}\n[1]\n`));
  assert.deepEqual(lines.problems, ["line 3: not an object with a format"]);
});
