import assert from "node:assert/strict";
import { buildLogState } from "../../../engine/provision.ts";
import { engineArgv, parseProfile, profileBaseUrl, type ProfileContext } from "../../../engine/profile.ts";

const context: ProfileContext = {
  vars: { cache: "/c", llama_server: "/c/llama-server", tiny_qwen3: "/c/models/tiny.gguf", profile_dir: "/p" },
  env: (name) => (name === "MODEL_DIR" ? "/models" : undefined),
};

Deno.test("a JSONC profile with comments, trailing commas and placeholders resolves to its engine command", () => {
  const profile = parseProfile(
    `// a comment
    {
      "label": "tiny", /* block */
      "engine": "\${llama_server}",
      "args": ["-m", "\${tiny_qwen3}", "--mmproj", "\${env:MODEL_DIR}/x.gguf", "-c", "20480",],
      "port": 8090,
      "env": { "LLAMA_ARG_THREADS": "2" },
      "model_files": ["\${profile_dir}/extra.gguf"],
    }`,
    "tiny",
    context,
  );
  assert.equal(profile.engine, "/c/llama-server");
  assert.deepEqual(profile.args, ["-m", "/c/models/tiny.gguf", "--mmproj", "/models/x.gguf", "-c", "20480"]);
  assert.equal(profile.host, "127.0.0.1");
  assert.equal(profile.readyTimeoutS, 300);
  assert.equal(profile.stopGraceS, 10);
  assert.deepEqual(profile.env, { LLAMA_ARG_THREADS: "2" });
  assert.deepEqual(profile.modelFiles, ["/p/extra.gguf"]);
  assert.deepEqual(engineArgv(profile).slice(-4), ["--host", "127.0.0.1", "--port", "8090"]);
});

Deno.test("a profile's engine_commit resolves its placeholder and must be a full 40-hex commit", () => {
  const commit = "80fb11ac73e66d89eae2c6a91d8a77428fa733ed";
  const withCommit = { vars: { ...context.vars, llama_cpp_commit: commit }, env: context.env };
  const base = { label: "x", engine: "/e", args: [], port: 8090 };
  const good = parseProfile(JSON.stringify({ ...base, engine_commit: "${llama_cpp_commit}" }), "x", withCommit);
  assert.equal(good.engineCommit, commit);
  assert.equal(parseProfile(JSON.stringify(base), "x", withCommit).engineCommit, null);
  assert.throws(
    () => parseProfile(JSON.stringify({ ...base, engine_commit: "80fb11a" }), "x", withCommit),
    /\/engine_commit: must be the engine's full 40-character/,
  );
});

Deno.test("every problem of a bad profile is reported at once with its pointer", () => {
  const text = JSON.stringify({
    label: "x",
    engine: "${nope}",
    args: ["--port", "9", "${env:UNSET}"],
    host: "0.0.0.0",
    port: 70000,
    extra: true,
    ready_timeout_s: -1,
  });
  let message = "";
  try {
    parseProfile(text, "bad", context);
  } catch (error) {
    assert.ok(error instanceof SyntaxError);
    message = error.message;
  }
  for (
    const part of [
      "/extra: unknown key",
      "/engine: unknown placeholder ${nope}",
      "/args/0",
      "/args/2: environment variable UNSET",
      '/host: "0.0.0.0" is not loopback',
      "/port",
      "/ready_timeout_s",
    ]
  ) {
    assert.ok(message.includes(part), `missing "${part}" in:\n${message}`);
  }
});

Deno.test("text that is not JSONC, or not an object, is a SyntaxError naming the profile", () => {
  assert.throws(() => parseProfile('{ "label": ', "p", context), /Cannot read profile "p": not valid JSONC/);
  assert.throws(() => parseProfile("[1]", "p", context), /top level must be an object/);
});

Deno.test("a placeholder this machine cannot resolve is named, not left in the command", () => {
  const noCache: ProfileContext = { vars: { ...context.vars, llama_server: undefined }, env: context.env };
  assert.throws(
    () => parseProfile(`{"label":"x","engine":"\${llama_server}","port":1}`, "p", noCache),
    /\$\{llama_server\} is not available here/,
  );
});

Deno.test("base URLs bracket IPv6 loopback", () => {
  assert.equal(profileBaseUrl("127.0.0.1", 8080), "http://127.0.0.1:8080");
  assert.equal(profileBaseUrl("::1", 8080), "http://[::1]:8080");
});

Deno.test("a build log is finished by its rc line, running while fresh, stale when old and unfinished", () => {
  assert.deepEqual(buildLogState(null, null), { state: "absent" });
  assert.deepEqual(buildLogState("[ 99%] x\n[100%] Built target llama-server\nrc=0 end=1795962002\n", 5), {
    state: "finished",
    rc: 0,
    endS: 1795962002,
  });
  assert.deepEqual(buildLogState("[ 47%] Building CXX object x.o\n", 30), { state: "running" });
  assert.deepEqual(buildLogState("[ 47%] Building CXX object x.o\n", 3600), { state: "stale" });
});

Deno.test("a profile key given twice is refused, never read last-wins; nesting past the bound is refused", () => {
  const twice = '{"label": "a", "engine": "/bin/llama-server", "port": 8080, "port": 9090}';
  assert.throws(() => parseProfile(twice, "p", context), /Cannot read profile "p": .*\/port: key "port" repeated/);
  const deep = `{"label": "a", "engine": "/bin/x", "port": 1, "env": ${"[".repeat(5000)}${"]".repeat(5000)}}`;
  assert.throws(() => parseProfile(deep, "p", context), /Cannot read profile "p": .*nesting 5001 deep, more than/);
});
