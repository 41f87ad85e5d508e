import assert from "node:assert/strict";
import { collectProvenance, type ServerFacts } from "../../../probe/mod.ts";
import { fakeDeps } from "./_fake.ts";

const COMMIT = "0123456789abcdef0123456789abcdef01234567";

function serverFacts(overrides: Partial<ServerFacts>): ServerFacts {
  return {
    baseUrl: "http://127.0.0.1:8080",
    dialect: "llama.cpp",
    dialectEvidence: "test",
    engineVersion: "b6890-80fb11a",
    engineCommit: null,
    modelPath: null,
    modelAlias: null,
    contextTokens: 16384,
    serverCapacity: 2,
    chatTemplate: { text: "{{ messages }}", sha256: "a".repeat(64) },
    defaultGenerationParams: null,
    priorRequests: { served: 0, atLeast: 0, freshlyLoaded: true, evidence: [], reason: null },
    props: {},
    status: null,
    slots: null,
    metrics: null,
    missing: { "/software/strata_commit": "short commit only" },
    endpointProblems: {},
    ...overrides,
  };
}

const MACHINE = {
  files: { "/tk/.git/HEAD": `${COMMIT}\n` },
  dirs: { "/tk/.git": [] },
  osRelease: "6.8.0",
  totalMemBytes: 1024,
  cpuModel: "Test CPU",
};

Deno.test("every null in the four sections and their extensions has a pointer in missing, and nothing else does", async () => {
  const facts = await collectProvenance({
    deps: fakeDeps(MACHINE),
    server: serverFacts({}),
    engineArgs: ["-c", "8192", "-ctk", "q8_0"],
    toolkitDir: "/tk",
    cacheDir: null,
  });
  const nulls: string[] = [];
  const walk = (value: unknown, pointer: string) => {
    if (value === null) nulls.push(pointer);
    else if (typeof value === "object") {
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) walk(item, `${pointer}/${key}`);
    }
  };
  for (const section of ["hardware", "software", "model", "configuration"] as const) {
    walk(facts[section], `/${section}`);
  }
  // The facts the contract has no field for go under extensions, their nulls explained there.
  walk(facts.modelFileFacts, "/extensions/model_file_facts");
  walk(facts.engineCommandLine, "/extensions/engine_command_line");
  walk(facts.machineToken, "/extensions/machine_token");
  assert.deepEqual(Object.keys(facts.missing).sort(), nulls.sort());
  assert.equal(facts.configuration.context_tokens, 16384, "the server's effective n_ctx wins over -c");
  assert.deepEqual(facts.configuration.kv_cache, { "cache-type-k": "q8_0" });
  assert.equal(facts.software.runner_commit, COMMIT);
  assert.deepEqual(facts.configuration.template, { path: "provenance/chat_template.jinja", sha256: "a".repeat(64) });
  assert.equal(facts.templateText, "{{ messages }}");
});

Deno.test("missing identity (engine commit, model files) is listed as nonconforming; operator facts fill the gaps", async () => {
  const bare = await collectProvenance({
    deps: fakeDeps(MACHINE),
    server: serverFacts({}),
    toolkitDir: "/tk",
    cacheDir: null,
  });
  assert.ok(bare.nonconformingReasons.some((r) => r.startsWith("engine commit unknown")));
  assert.ok(bare.nonconformingReasons.some((r) => r.includes("model files could not be identified")));

  const stated = await collectProvenance({
    deps: fakeDeps(MACHINE),
    server: serverFacts({}),
    toolkitDir: "/tk",
    cacheDir: null,
    operator: {
      engineCommit: COMMIT.toUpperCase(),
      quantization: "Q4_K_M",
      modelRevision: "rev1",
      buildOptions: ["GGML_CUDA=ON"],
    },
  });
  assert.equal(stated.software.strata_commit, COMMIT);
  assert.equal(stated.model.quantization, "Q4_K_M");
  assert.deepEqual(stated.software.build_options, ["GGML_CUDA=ON"]);
  assert.equal(stated.missing["/software/strata_commit"], undefined);
  assert.ok(!stated.nonconformingReasons.some((r) => r.startsWith("engine commit unknown")));
});

Deno.test("an operator engine commit that is not a full 40-hex id is refused with a RangeError", async () => {
  await assert.rejects(
    collectProvenance({
      deps: fakeDeps(MACHINE),
      toolkitDir: "/tk",
      cacheDir: null,
      operator: { engineCommit: "80fb11a" },
    }),
    RangeError,
  );
});

Deno.test("without a server: argv context and capacity are used; template unknown makes the run nonconforming", async () => {
  const facts = await collectProvenance({
    deps: fakeDeps(MACHINE),
    engineArgs: ["-c", "8192", "-np", "4"],
    toolkitDir: "/tk",
    cacheDir: null,
  });
  assert.equal(facts.server, null);
  assert.equal(facts.configuration.context_tokens, 8192);
  assert.equal(facts.configuration.server_capacity, 4);
  assert.equal(facts.configuration.template, null);
  assert.ok(facts.nonconformingReasons.some((r) => r.startsWith("chat template unknown")));
  assert.match(facts.missing["/software/engine_version"] ?? "", /no server/);
});
