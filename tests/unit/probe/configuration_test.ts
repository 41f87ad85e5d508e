import assert from "node:assert/strict";
import {
  buildConfigurationObjects,
  CONFIGURATION_OBJECTS,
  forbiddenServerSettings,
  readEngineArgs,
} from "../../../probe/configuration.ts";

Deno.test("llama-server argv: options land in their objects under the long flag names, numbers as numbers", () => {
  const reading = readEngineArgs([
    "-m",
    "x.gguf",
    "-c",
    "32768",
    "-ngl",
    "99",
    "--cache-type-k",
    "q8_0",
    "-ctv",
    "q8_0",
    "-fa",
    "on",
    "-ub",
    "512",
    "--n-cpu-moe",
    "12",
    "-np",
    "1",
    "--host",
    "127.0.0.1",
    "--port",
    "8080",
    "--jinja",
    "-t",
    "8",
  ]);
  assert.deepEqual(reading.objects.kv_cache, { "cache-type-k": "q8_0", "cache-type-v": "q8_0" });
  assert.deepEqual(reading.objects.offloading, { "gpu-layers": 99, "n-cpu-moe": 12 });
  assert.deepEqual(reading.objects.prefill, { "flash-attn": "on", "ubatch-size": 512 });
  assert.deepEqual(reading.objects.expert_cache, {});
  assert.deepEqual(reading.objects.mtp, {});
  assert.equal(reading.contextTokens, 32768);
  assert.equal(reading.serverCapacity, 1);
  assert.deepEqual(reading.modelFiles, ["x.gguf"]);
  assert.deepEqual(reading.otherOptions, { "ctx-size": 32768, parallel: 1, jinja: true, threads: 8 });
  assert.deepEqual(reading.unclassified, []);
});

Deno.test("--flag=value, switches, a draft model (mtp) and repeated options are all kept", () => {
  const reading = readEngineArgs([
    "--model=/models/a.gguf",
    "--no-mmap",
    "-md",
    "/models/draft.gguf",
    "--draft-max",
    "16",
    "-ot",
    "blk\\.1[0-9]\\.ffn_.*=CPU",
    "-ot",
    "exps=CPU",
  ]);
  assert.deepEqual(reading.modelFiles, ["/models/a.gguf", "/models/draft.gguf"]);
  assert.deepEqual(reading.objects.offloading, {
    "no-mmap": true,
    "override-tensor": ["blk\\.1[0-9]\\.ffn_.*=CPU", "exps=CPU"],
  });
  assert.deepEqual(reading.objects.mtp, { "model-draft": "/models/draft.gguf", "draft-max": 16 });
});

Deno.test("a switch-like optional flag before another flag takes no value (-fa then -c)", () => {
  const reading = readEngineArgs(["-fa", "-c", "4096"]);
  assert.deepEqual(reading.objects.prefill, { "flash-attn": true });
  assert.equal(reading.contextTokens, 4096);
});

Deno.test("flags the table does not know are listed as unclassified, never guessed into an object", () => {
  const reading = readEngineArgs(["--expert-cache-gb", "24", "--experimental-thing", "--rope-scaling", "yarn"]);
  assert.deepEqual(reading.unclassified, ["--expert-cache-gb 24", "--experimental-thing"]);
  assert.deepEqual(reading.objects.experimental_options, { "rope-scaling": "yarn" });
  for (const name of CONFIGURATION_OBJECTS) {
    if (name !== "experimental_options") assert.deepEqual(reading.objects[name], {}, name);
  }
});

Deno.test("without the engine command line every configuration object is null with a reason", () => {
  const built = buildConfigurationObjects(null);
  for (const name of CONFIGURATION_OBJECTS) {
    assert.equal(built.objects[name], null);
    assert.match(built.missing[`/configuration/${name}`] ?? "", /command line is unknown/);
  }
  assert.equal(built.reading, null);
});

Deno.test("with an empty command line every object is {} (engine defaults), none is null", () => {
  const built = buildConfigurationObjects([]);
  assert.deepEqual(Object.values(built.objects), CONFIGURATION_OBJECTS.map(() => ({})));
  assert.deepEqual(built.missing, {});
});

Deno.test("a custom reasoning budget or thinking turned off on the server's command line is a nonconforming reason", () => {
  const reasonsOf = (argv: string[]) => forbiddenServerSettings(readEngineArgs(argv).otherOptions);
  assert.deepEqual(reasonsOf(["-m", "m.gguf", "--jinja"]), []);
  assert.deepEqual(reasonsOf(["--reasoning-budget", "-1", "--reasoning", "auto"]), []);
  const [budget] = reasonsOf(["--reasoning-budget", "0"]);
  assert.match(budget ?? "", /^the server runs with --reasoning-budget 0: the profile leaves thinking unrestricted/);
  assert.match(reasonsOf(["--reasoning-budget=2048"])[0] ?? "", /--reasoning-budget 2048/);
  assert.match(reasonsOf(["-rea", "off"])[0] ?? "", /^the server runs with --reasoning "off"/);
});
