/**
 * `load` against what is no LLM server, as a person types it: a plain web server, a --url ending in /v1, a closed
 * port. Each ends in one line that names the cause and its fix, exits 3, and leaves no file in --out.
 */
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockEngine } from "../../mock/mod.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("load refuses a web page, a /v1 URL and a closed port in one line each, leaving no file", async () => {
  const out = await Deno.makeTempDir({ prefix: "strata-load-refused-" });
  const page = "<!DOCTYPE html><html><body>Directory listing</body></html>";
  const web = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(page, { status: 501, headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    const plan = ["--concurrency", "1", "--requests", "2", "--out", out];
    const run = async (url: string) => {
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-q",
          "-P=load",
          `--allow-write=${out}`,
          "--no-prompt",
          join(REPO, "mod.ts"),
          "load",
          "--url",
          url,
          ...plan,
        ],
        cwd: REPO,
        stdout: "piped",
        stderr: "piped",
      }).output();
      return {
        code: output.code,
        stdout: new TextDecoder().decode(output.stdout),
        stderr: new TextDecoder().decode(output.stderr),
      };
    };
    const cases: [string, RegExp][] = [
      [
        `http://127.0.0.1:${web.addr.port}`,
        /^load: REFUSED \(exit 3\): http:\/\/127\.0\.0\.1:\d+ is not an OpenAI-compatible server: POST \/v1\/chat\/completions answered HTTP 501 with an HTML page \(\d+ bytes\); pass the address of an LLM server \(llama-server or the like\); nothing was measured\n$/,
      ],
      [
        `${engine.url}/v1`,
        /^load: REFUSED \(exit 3\): POST .*\/v1\/v1\/chat\/completions answered HTTP 404[^\n]*; drop \/v1 from --url \(the tool adds \/v1\/chat\/completions\); nothing was measured\n$/,
      ],
      [
        "http://127.0.0.1:9",
        /^load: UNREACHABLE \(exit 3\): nothing answered at http:\/\/127\.0\.0\.1:9 [^\n]*; start the server, or pass --url with its address; nothing was measured\n$/,
      ],
    ];
    for (const [url, said] of cases) {
      const result = await run(url);
      assert.equal(result.code, 3, result.stderr);
      assert.match(result.stdout, said);
      assert.doesNotMatch(
        result.stdout + result.stderr,
        /Directory listing|<html/i,
        "the page's bytes are never shown",
      );
      assert.doesNotMatch(result.stderr, /load: writing/, "no file was announced");
      assert.deepEqual(await readdir(out), [], `${url}: no file left behind`);
    }
  } finally {
    await web.shutdown();
    await engine.close();
    await Deno.remove(out, { recursive: true });
  }
});
