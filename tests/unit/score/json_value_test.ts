import assert from "node:assert/strict";
import { describeJsonDifference, jsonEquals, renderJson, toJsonValue } from "../../../score/json_value.ts";
import { type JsonValue, parseStrictJson } from "../../../score/strict_json.ts";

function v(text: string): JsonValue {
  const result = parseStrictJson(text);
  assert.ok(result.ok, text);
  return result.value;
}

Deno.test('jsonEquals compares lexical types: 3 != 3.0, true != 1, "3" != 3', () => {
  assert.equal(jsonEquals(v("3"), v("3.0")), false);
  assert.equal(jsonEquals(v("3"), v("3e0")), false);
  assert.equal(jsonEquals(v("true"), v("1")), false);
  assert.equal(jsonEquals(v('"3"'), v("3")), false);
  assert.equal(jsonEquals(v("null"), v("false")), false);
  assert.equal(jsonEquals(v("[]"), v("{}")), false);
});

Deno.test("jsonEquals ignores key order and compares non-integers by value", () => {
  assert.equal(jsonEquals(v('{"ok":true,"count":3}'), v('{"count":3,"ok":true}')), true);
  assert.equal(jsonEquals(v("1.0"), v("1.00")), true);
  assert.equal(jsonEquals(v("-0"), v("0")), true);
  assert.equal(jsonEquals(v("12345678901234567890"), v("12345678901234567891")), false);
  assert.equal(jsonEquals(v("[1,2]"), v("[2,1]")), false);
  assert.equal(jsonEquals(v('{"a":1}'), v('{"a":1,"b":2}')), false);
  assert.equal(jsonEquals(v('{"a":1,"c":2}'), v('{"a":1,"b":2}')), false);
});

Deno.test("jsonEquals handles very deep values without recursion", () => {
  const text = "[".repeat(20_000) + "]".repeat(20_000);
  const a = parseStrictJson(text, { maxDepth: 30_000 });
  const b = parseStrictJson(text, { maxDepth: 30_000 });
  assert.ok(a.ok && b.ok);
  assert.equal(jsonEquals(a.value, b.value), true);
});

Deno.test("toJsonValue turns plain integers into integers and refuses non-JSON values", () => {
  assert.equal(
    jsonEquals(toJsonValue({ count: 3, list: [-4, "x", null] }), v('{"list":[-4,"x",null],"count":3}')),
    true,
  );
  assert.equal(jsonEquals(toJsonValue(2.5), v("2.5")), true);
  assert.throws(() => toJsonValue(Number.NaN), TypeError);
  assert.throws(() => toJsonValue({ a: undefined }), TypeError);
  assert.throws(() => toJsonValue(() => 1), TypeError);
});

Deno.test("describeJsonDifference names the first difference with both lexical types", () => {
  const expected = toJsonValue({ ok: true, count: 3 });
  assert.equal(describeJsonDifference(v('{"ok":true,"count":3}'), expected), null);
  assert.equal(
    describeJsonDifference(v('{"ok":true,"count":3.0}'), expected),
    "count is 3.0 (number with a fraction), expected integer 3",
  );
  assert.equal(
    describeJsonDifference(v('{"ok":true,"count":"3"}'), expected),
    'count is "3" (string), expected integer 3',
  );
  assert.equal(describeJsonDifference(v('{"ok":true}'), expected), 'missing key "count"');
  assert.equal(describeJsonDifference(v('{"ok":true,"count":3,"x":0}'), expected), 'extra key "x"');
  assert.equal(
    describeJsonDifference(v("[1]"), expected, "the answer"),
    "the answer is [1] (array of 1), expected an object",
  );
  assert.equal(
    describeJsonDifference(v("[9,2,-4,1]"), toJsonValue([-4, 1, 2, 9]), "the answer"),
    "the answer is [9,2,-4,1], expected [-4,1,2,9]",
  );
  assert.equal(
    describeJsonDifference(v('{"a":{"b":1e0}}'), toJsonValue({ a: { b: 1 } })),
    "a.b is 1e0 (number with an exponent), expected integer 1",
  );
});

Deno.test("renderJson keeps number lexemes and cuts long values", () => {
  assert.equal(renderJson(v('{"a":[1,2.50,"x"],"b":null}')), '{"a":[1,2.50,"x"],"b":null}');
  const long = renderJson(v(`["${"y".repeat(500)}"]`), 40);
  assert.equal(long.length, 40);
  assert.ok(long.endsWith("..."));
});
