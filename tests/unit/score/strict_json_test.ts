import assert from "node:assert/strict";
import {
  DEFAULT_MAX_DEPTH,
  type JsonNumber,
  type JsonObject,
  type JsonValue,
  parseStrictJson,
  parseStrictJsonPlain,
} from "../../../score/mod.ts";

function reject(text: string, reasonPart: RegExp, offset?: number): void {
  const result = parseStrictJson(text);
  assert.equal(result.ok, false, `accepted ${JSON.stringify(text.slice(0, 60))}`);
  if (!result.ok) {
    assert.match(result.reason, reasonPart);
    if (offset !== undefined) assert.equal(result.offset, offset);
  }
}

function plain(text: string): unknown {
  const result = parseStrictJsonPlain(text);
  assert.ok(result.ok, result.ok ? "" : `${result.reason} at ${result.offset}`);
  return result.value;
}

function value(text: string): JsonValue {
  const result = parseStrictJson(text);
  assert.ok(result.ok, result.ok ? "" : `${result.reason} at ${result.offset}`);
  return result.value;
}

Deno.test("strict JSON parses every value kind and keeps key order", () => {
  assert.deepEqual(plain('{"b":[1,-2.5,3e2,true,false,null,"x"],"a":{}}'), {
    b: [1, -2.5, 300, true, false, null, "x"],
    a: {},
  });
  const parsed = value('{"z":1,"a":2}');
  assert.ok(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) && parsed.kind === "object");
  assert.deepEqual([...parsed.entries.keys()], ["z", "a"]);
});

Deno.test("strict JSON accepts surrounding JSON whitespace and scalars at the top level", () => {
  assert.deepEqual(plain(" \t\r\n[1]\n\r\t "), [1]);
  assert.equal(plain('"READY"'), "READY");
  assert.equal(plain("0"), 0);
  assert.equal(plain("null"), null);
});

Deno.test("strict JSON keeps lexical number types: 3 is an integer, 3.0 and 3e0 are not", () => {
  for (const [text, isInteger] of [["3", true], ["-0", true], ["3.0", false], ["3e0", false], ["3E+0", false]]) {
    const parsed = value(text as string);
    assert.ok(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) && parsed.kind === "number");
    assert.equal(parsed.isInteger, isInteger, text as string);
    assert.equal(parsed.lexeme, text);
    assert.equal(parsed.value, Number(text));
  }
});

Deno.test("strict JSON rejects duplicate keys at the top level and nested, after decoding escapes", () => {
  reject('{"ok":true,"ok":true}', /duplicate key "ok"/, 11);
  reject('{"a":{"b":[{"c":1,"c":2}]}}', /duplicate key "c"/, 18);
  reject('{"a":1,"\\u0061":2}', /duplicate key "a"/);
  assert.deepEqual(plain('{"a":{"a":1},"b":{"a":2}}'), { a: { a: 1 }, b: { a: 2 } });
});

Deno.test("strict JSON rejects Markdown fences, prose before and text after the value", () => {
  reject('```json\n{"ok":true}\n```', /Markdown code fence/, 0);
  reject('{"ok":true}\n```', /Markdown code fence after/, 12);
  reject('Here is the JSON: {"ok":true}', /prose instead of a JSON value/, 0);
  reject('{"ok":true} I hope this helps.', /extra text after the JSON value/, 12);
  reject("[1] [2]", /extra text after/, 4);
  reject("READY", /prose/);
  reject("true story", /extra text/, 5);
});

Deno.test("strict JSON rejects a byte order mark, empty input and whitespace only", () => {
  reject("\uFEFF{}", /byte order mark/, 0);
  reject("", /empty input/, 0);
  reject(" \n ", /only whitespace/);
  reject("\u00a0{}", /expected a value/); // non-breaking space is not JSON whitespace
  reject("\f{}", /expected a value/);
});

Deno.test("strict JSON rejects what RFC 8259 does not allow", () => {
  reject("[1,]", /trailing comma/);
  reject('{"a":1,}', /trailing comma/);
  reject("01", /leading zero/);
  reject("-01", /leading zero/);
  reject("+1", /leading '\+'/);
  reject(".5", /before '\.'/);
  reject("1.", /no digit after '\.'/);
  reject("1e", /exponent/);
  reject("-", /without digits/);
  reject("NaN", /NaN is not a JSON value/);
  reject("[Infinity]", /Infinity is not a JSON value/);
  reject("[-Infinity]", /without digits/);
  reject("{'a':1}", /string key/);
  reject("{a:1}", /string key/);
  reject('{"a" 1}', /':' after an object key/);
  reject('{"a":1 "b":2}', /',' or '}'/);
  reject("[1 2]", /',' or '\]'/);
  reject("[1,,2]", /expected a value/);
  reject('{"a":1} // note', /extra text/);
  reject("[1 /* c */]", /comment/);
  reject("[", /input ended/);
  reject('{"a":', /input ended/);
  reject("tru", /prose/);
  reject("[nul]", /expected a value/);
});

Deno.test("strict JSON decodes every escape, including surrogate pairs", () => {
  assert.equal(plain('"\\" \\\\ \\/ \\b \\f \\n \\r \\t"'), '" \\ / \b \f \n \r \t');
  assert.equal(plain('"\\u0041\\u00e9\\u4E2D"'), "A\u00e9\u4e2d");
  assert.equal(plain('"\\ud83d\\ude00"'), "\u{1F600}");
  assert.equal(plain('"\u{1F600} raw"'), "\u{1F600} raw");
  assert.equal(plain('"\\u0000"'), "\u0000");
});

Deno.test("strict JSON rejects raw control characters, bad escapes and unpaired surrogates in strings", () => {
  reject('"a\nb"', /raw control character U\+000A/, 2);
  reject('"\t"', /raw control character U\+0009/);
  reject('"\u0000"', /raw control character U\+0000/);
  reject('"\\x41"', /invalid escape \\x/);
  reject('"\\u12"', /four hex digits/);
  reject('"\\uZZZZ"', /four hex digits/);
  reject('"\\ud800"', /unpaired surrogate escape \\uD800/);
  reject('"\\ud800\\u0041"', /unpaired surrogate/);
  reject('"\\udc00"', /unpaired surrogate escape \\uDC00/);
  reject('"\ud800x"', /unpaired surrogate U\+D800/);
  reject('"abc', /unterminated string/, 0);
  reject('"abc\\', /unterminated string/);
});

Deno.test("strict JSON treats __proto__ as an ordinary own key, never a prototype", () => {
  const result = plain('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
  assert.deepEqual(Object.keys(result), ["__proto__", "a"]);
  assert.ok(Object.hasOwn(result, "__proto__"));
  assert.deepEqual(Object.getOwnPropertyDescriptor(result, "__proto__")?.value, { polluted: true });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  reject('{"__proto__":1,"__proto__":2}', /duplicate key "__proto__"/);
});

Deno.test("strict JSON limits nesting depth without recursion: 100,000 brackets give an error result", () => {
  reject("[".repeat(100_000), /nesting deeper than 512 levels/, 512);
  reject('{"a":'.repeat(100_000), /nesting deeper than 512/);
  const deepest = "[".repeat(DEFAULT_MAX_DEPTH) + "]".repeat(DEFAULT_MAX_DEPTH);
  assert.ok(parseStrictJson(deepest).ok);
  assert.ok(!parseStrictJson("[" + deepest + "]").ok);
  assert.ok(!parseStrictJson("[[1]]", { maxDepth: 1 }).ok);
  assert.ok(parseStrictJson("[1]", { maxDepth: 1 }).ok);
  const deep = "[".repeat(50_000) + "]".repeat(50_000);
  assert.ok(parseStrictJsonPlain(deep, { maxDepth: 60_000 }).ok, "iterative conversion of a very deep value");
});

Deno.test("strict JSON refuses numbers too large to represent instead of returning Infinity", () => {
  reject("1e400", /too large to represent/, 0);
  reject("[-1e400]", /too large/, 1);
  reject("1" + "0".repeat(400), /too large/);
  const big = value("12345678901234567890");
  assert.ok(typeof big === "object" && big !== null && !Array.isArray(big) && big.kind === "number");
  assert.equal(big.lexeme, "12345678901234567890");
  assert.equal(big.isInteger, true);
});

Deno.test("strict JSON parses a 20 MB string and reports an unterminated one without crashing", () => {
  const body = "x".repeat(20_000_000);
  assert.equal((plain(`"${body}"`) as string).length, 20_000_000);
  reject(`"${body}`, /unterminated string/, 0);
  reject(`["${body}", ]`, /trailing comma/);
});

Deno.test("strict JSON error offsets are UTF-16 indices of the offending character", () => {
  reject('{"é":1,"é":2}', /duplicate key "é"/, 7);
  reject('["\u{1F600}",x]', /expected a value/, 6);
});

Deno.test("duplicateKeys record: repeated keys are read and listed with every value in order", () => {
  const parsed = parseStrictJson('{"a":1,"b":{"c":2,"c":3,"c":4},"a":5}', { duplicateKeys: "record" });
  assert.ok(parsed.ok);
  const top = parsed.value as JsonObject;
  assert.deepEqual([...top.duplicates!.keys()], ["a"]);
  assert.deepEqual(top.duplicates!.get("a")!.map((v) => (v as JsonNumber).lexeme), ["1", "5"]);
  const inner = top.entries.get("b") as JsonObject;
  assert.deepEqual(inner.duplicates!.get("c")!.map((v) => (v as JsonNumber).lexeme), ["2", "3", "4"]);
  assert.equal((inner.entries.get("c") as JsonNumber).lexeme, "4", "entries keep the last, as JSON.parse does");
  const plain = parseStrictJson('{"a":1}', { duplicateKeys: "record" });
  assert.ok(plain.ok && (plain.value as JsonObject).duplicates === undefined);
  assert.equal(parseStrictJson('{"a":1,"a":2}').ok, false, "the default still fails");
});

Deno.test("nonFiniteNumbers keep: 1e400 is read with its lexeme and Infinity", () => {
  const parsed = parseStrictJson("[1e400,-1e400]", { nonFiniteNumbers: "keep" });
  assert.ok(parsed.ok);
  const [big, small] = parsed.value as JsonNumber[];
  assert.equal(big!.lexeme, "1e400");
  assert.equal(big!.value, Infinity);
  assert.equal(small!.value, -Infinity);
  assert.equal(parseStrictJson("1e400").ok, false, "the default still fails");
});

Deno.test("1e-400 is refused, never read as 0; integersAsWritten refuses 1e0 and 1.0 where a count is read", () => {
  reject("1e-400", /number 1e-400 is too small to represent \(it would read as 0\)/, 0);
  reject("[0.5e-999]", /too small to represent/, 1);
  assert.deepEqual(plain("[0, 0.0e9, 5e-324]"), [0, 0, 5e-324]);
  assert.equal((value("1e0") as JsonNumber).isInteger, false, "the lexeme says 1e0 is no integer");
  for (const text of ["1e0", '{"completed":1.0}', "[2E+1]"]) {
    const result = parseStrictJsonPlain(text, { integersAsWritten: true });
    assert.equal(result.ok, false, text);
    assert.match(result.ok ? "" : result.reason, /is an integer written with a fraction or an exponent/);
  }
  assert.deepEqual(parseStrictJsonPlain("[1, 0.5, 1e21, 1e-7]", { integersAsWritten: true }), {
    ok: true,
    value: [1, 0.5, 1e21, 1e-7],
  });
});
