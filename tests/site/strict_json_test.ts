/** The site's own strict JSON parser: exactly one RFC 8259 value, nothing lenient. */
import assert from "node:assert/strict";
import { JsonNumber, parseStrictJson } from "../../site/web/strict_json.js";

const accepts: [string, unknown][] = [
  ['{"ok":true,"count":3}', { ok: true, count: 3 }],
  [" \t\r\n[1, -2.5e3, 0, -0, 1E+2]\n", [1, -2500, 0, -0, 100]],
  ['"\\u0041\\n\\"\\\\\\/"', 'A\n"\\/'],
  ['"\\ud83d\\ude00"', "😀"],
  ["null", null],
  ['{"__proto__":1}', Object.assign(Object.create(null), { ["__proto__"]: 1 })],
];
for (const [text, expected] of accepts) {
  Deno.test(`strict JSON accepts ${JSON.stringify(text)}`, () => {
    const parsed = parseStrictJson(text);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    assert.deepEqual(JSON.stringify(parsed.value), JSON.stringify(expected));
  });
}

Deno.test("strict JSON keeps __proto__ as an ordinary key, never as the prototype", () => {
  const parsed = parseStrictJson('{"__proto__":{"polluted":true}}');
  assert.ok(parsed.ok);
  assert.equal(Object.getPrototypeOf(parsed.value), null);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

const rejects: [string, RegExp][] = [
  ['{"a":1,"a":1}', /duplicate key "a"/],
  ['{"a":{"b":1,"b":2}}', /duplicate key "b"/],
  ['{"\\u0061":1,"a":2}', /duplicate key "a"/],
  ["[1,]", /unexpected character/],
  ['{"a":1,}', /expected a string key/],
  ["01", /malformed number/],
  ["1.", /malformed number/],
  [".5", /unexpected character/],
  ["1e", /malformed number/],
  ["+1", /unexpected character/],
  ["-", /malformed number/],
  ["1e400", /does not fit a double/],
  ["NaN", /unexpected character/],
  ["\ufeff{}", /unexpected character/],
  ["{} {}", /unexpected text after the JSON value/],
  ['"a\tb"', /control character/],
  ['"\\x41"', /unknown escape/],
  ['"\\u12"', /malformed \\u escape/],
  ['"abc', /unterminated string/],
  ["// c\n1", /unexpected character/],
  ["```json\n[1]\n```", /unexpected character/],
  ["", /unexpected end/],
  ["tru", /unexpected character/],
  [`${"[".repeat(300)}${"]".repeat(300)}`, /nesting deeper than 256/],
];
for (const [text, reason] of rejects) {
  Deno.test(`strict JSON rejects ${JSON.stringify(text.slice(0, 30))}`, () => {
    const parsed = parseStrictJson(text);
    assert.equal(parsed.ok, false);
    if (!parsed.ok) assert.match(parsed.message, reason);
  });
}

Deno.test("strict JSON with lexemes tells 3 from 3.0 and 3e0", () => {
  const parsed = parseStrictJson("[3, 3.0, 3e0, -17]", { lexemes: true });
  assert.ok(parsed.ok);
  const [a, b, c, d] = parsed.value as JsonNumber[];
  assert.deepEqual([a!.isInteger, b!.isInteger, c!.isInteger, d!.isInteger], [true, false, false, true]);
  assert.deepEqual([a!.lexeme, b!.lexeme, c!.lexeme], ["3", "3.0", "3e0"]);
  assert.equal(d!.value, -17);
});

Deno.test("as sent (an engine's chunk): a repeated key keeps every value, 1e400 keeps its lexeme", async () => {
  const { Repeated } = await import("../../site/web/strict_json.js");
  const parsed = parseStrictJson('{"a":1,"a":2,"a":3,"b":1e400,"c":{"d":4}}', { lexemes: true, asSent: true });
  assert.ok(parsed.ok, JSON.stringify(parsed));
  const value = parsed.value as Record<string, unknown>;
  assert.ok(value.a instanceof Repeated);
  assert.deepEqual((value.a as InstanceType<typeof Repeated>).values.map((n) => (n as JsonNumber).lexeme), [
    "1",
    "2",
    "3",
  ]);
  assert.ok(value.b instanceof JsonNumber && value.b.lexeme === "1e400" && value.b.value === Infinity);
  // Without asSent (and without lexemes) both stay refusals.
  assert.equal(parseStrictJson('{"a":1,"a":2}', { lexemes: true }).ok, false);
  assert.equal(parseStrictJson("1e400", { asSent: true }).ok, false, "asSent needs lexemes");
});

Deno.test("1e-400 is refused, never read as 0; integersAsWritten refuses an integer written as 1e0 or 1.0", () => {
  for (const text of ["1e-400", "[2.5e-400]", "-1e-999"]) {
    const parsed = parseStrictJson(text);
    assert.equal(parsed.ok, false, text);
    assert.match(parsed.ok ? "" : parsed.message, /too small for a double \(it would read as 0\)/);
  }
  assert.deepEqual(parseStrictJson("[0, 0.0e5, 5e-324]"), { ok: true, value: [0, 0, 5e-324] });
  for (const text of ["1e0", '{"completed":1.0}', "2E+1"]) {
    assert.equal(parseStrictJson(text).ok, true, "any JSON number otherwise");
    const parsed = parseStrictJson(text, { integersAsWritten: true });
    assert.equal(parsed.ok, false, text);
    assert.match(parsed.ok ? "" : parsed.message, /an integer written with a fraction or an exponent/);
  }
  assert.deepEqual(parseStrictJson("[1e21, 0.5, 1e-7]", { integersAsWritten: true }), {
    ok: true,
    value: [1e21, 0.5, 1e-7],
  });
  const kept = parseStrictJson("[1e0]", { lexemes: true });
  assert.ok(kept.ok && kept.value instanceof Array && (kept.value[0] as JsonNumber).isInteger === false);
});

Deno.test("evidence bytes are UTF-8 or null: a malformed byte is refused, a U+FFFD written as UTF-8 is kept", async () => {
  const { decodeUtf8 } = await import("../../site/web/evidence.js");
  const bytes = (...b: number[]) => new Uint8Array(b);
  assert.equal(decodeUtf8(new TextEncoder().encode('{"a":"\ufffd é"}')), '{"a":"\ufffd é"}');
  assert.equal(decodeUtf8(bytes(0x7b, 0xff, 0x7d)), null, "0xff is never UTF-8");
  assert.equal(decodeUtf8(bytes(0x22, 0xc3)), null, "a sequence cut short");
  assert.equal(decodeUtf8(bytes(0xed, 0xa0, 0x80)), null, "an encoded surrogate");
  assert.equal(decodeUtf8(bytes(0xef, 0xbf, 0xbd, 0xc3)), null, "a genuine U+FFFD before a malformed byte");
  assert.equal(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x31)), "\ufeff1", "a byte-order mark is kept");
});
