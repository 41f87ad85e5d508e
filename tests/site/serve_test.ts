/** `site serve`'s handler on a real loopback server (port 0): only regular files inside the site, as a static host. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { serveHttp } from "../../runtime/mod.ts";
import { folderReader, siteRequestHandler } from "../../site/mod.ts";
import { sitePathOf } from "../../site/_serve.ts";

Deno.test("URL paths map to files inside the site; dotfiles, parent segments and backslashes map to nothing", () => {
  assert.equal(sitePathOf("/"), "index.html");
  assert.equal(sitePathOf("/r/run-1/"), "r/run-1/index.html");
  assert.equal(sitePathOf("/assets/app.js?x=1"), "assets/app.js");
  assert.equal(sitePathOf("/evidence/sha256/ab%63"), "evidence/sha256/abc");
  for (
    const bad of ["/../etc/passwd", "/r/%2e%2e/x", "/.strata-site-files.json", "/a\\b", "/%ZZ", "//x", "/x/.git/config"]
  ) {
    assert.equal(sitePathOf(bad), null, bad);
  }
});

Deno.test("site serve answers files with their types, evidence as immutable bytes, and refuses the rest", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-serve-" });
  const outside = await Deno.makeTempDir({ prefix: "strata-outside-" });
  const server = await serveHttp({ hostname: "127.0.0.1", port: 0, onRequest: siteRequestHandler(folderReader(dir)) });
  try {
    await Deno.mkdir(join(dir, "r/run-1"), { recursive: true });
    await Deno.mkdir(join(dir, "evidence/sha256"), { recursive: true });
    await Deno.writeTextFile(join(dir, "index.html"), "<!doctype html>");
    await Deno.writeTextFile(join(dir, "r/run-1/index.html"), "<p>run</p>");
    await Deno.writeFile(join(dir, "evidence/sha256/abc"), new Uint8Array([0, 255, 10]));
    await Deno.writeTextFile(join(outside, "secret.txt"), "secret");
    await Deno.symlink(join(outside, "secret.txt"), join(dir, "link.txt"));
    await Deno.symlink(outside, join(dir, "r/escape"));
    const base = `http://127.0.0.1:${server.port}`;
    const get = async (path: string, init?: RequestInit) => {
      const response = await fetch(`${base}${path}`, { redirect: "manual", ...init });
      return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
    };
    const index = await get("/");
    assert.equal(index.response.status, 200);
    assert.equal(index.response.headers.get("content-type"), "text/html; charset=utf-8");
    const evidence = await get("/evidence/sha256/abc");
    assert.deepEqual([...evidence.bytes], [0, 255, 10]);
    assert.equal(evidence.response.headers.get("content-type"), "application/octet-stream");
    assert.match(evidence.response.headers.get("cache-control") ?? "", /immutable/);
    const big = new TextEncoder().encode("record000001: alpha beta gamma\n".repeat(400));
    const packed = new Uint8Array(
      await new Response(new Blob([big]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer(),
    );
    await Deno.writeFile(join(dir, "evidence/sha256/big"), big);
    await Deno.writeFile(join(dir, "evidence/sha256/big.gz"), packed);
    const compressed = await get("/evidence/sha256/big", { headers: { "accept-encoding": "gzip" } });
    assert.equal(compressed.response.headers.get("content-encoding"), "gzip");
    assert.deepEqual(compressed.bytes, big, "the client receives the original bytes");
    const plain = await fetch(`${base}/evidence/sha256/big`, { headers: { "accept-encoding": "identity" } });
    assert.equal(plain.headers.get("content-encoding"), null);
    assert.equal((await plain.arrayBuffer()).byteLength, big.length);
    const folder = await get("/r/run-1");
    assert.equal(folder.response.status, 301);
    assert.equal(folder.response.headers.get("location"), "/r/run-1/");
    for (const path of ["/link.txt", "/r/escape/secret.txt", "/missing", "/%2e%2e/etc/passwd"]) {
      assert.equal((await get(path)).response.status, 404, path);
    }
    assert.equal((await get("/", { method: "POST", body: "x" })).response.status, 405);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("site serve on a port in use exits 3 with what to do, not a stack trace", async () => {
  const { strataBench } = await import("./_fixture_repo.ts");
  const dir = await Deno.makeTempDir({ prefix: "strata-serve-busy-" });
  const busy = await serveHttp({
    hostname: "127.0.0.1",
    port: 0,
    onRequest: async (_request, response) => {
      response.writeHead(200, {});
      await response.end("");
    },
  });
  try {
    await Deno.writeTextFile(`${dir}/index.html`, "<!doctype html>");
    const out = await strataBench(["site", "serve", dir, "--port", String(busy.port)], ["-P=site-serve"]);
    assert.equal(out.code, 3, out.stderr);
    assert.match(out.stderr, new RegExp(`Cannot serve on 127\\.0\\.0\\.1:${busy.port}: the port is in use`));
    assert.match(out.stderr, /pass --port N with a free port, or --port 0 for any/);
    assert.doesNotMatch(out.stderr, /EADDRINUSE|at async/);
  } finally {
    await busy.close();
    await Deno.remove(dir, { recursive: true });
  }
});
