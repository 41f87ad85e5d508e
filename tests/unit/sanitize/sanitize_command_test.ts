import assert from "node:assert/strict";
import { ABSOLUTE_PATH_PLACEHOLDER, sanitizeCommand } from "../../../sanitize/sanitize.ts";

Deno.test("a published command keeps only the last part of an absolute path, as an argument or --flag=value", () => {
  assert.equal(
    sanitizeCommand(["strata-bench", "run", "--out", "/srv/xyz/c", "--profile=/srv/profiles/mine.jsonc"]),
    "strata-bench run --out <abs-path>/c --profile=<abs-path>/mine.jsonc",
  );
  assert.equal(sanitizeCommand(["run", "--out=/data/runs/"]), "run --out=<abs-path>/runs");
  assert.equal(sanitizeCommand(["run", "--out", "/"]), `run --out ${ABSOLUTE_PATH_PLACEHOLDER}`);
});

Deno.test("Windows drive and UNC paths are absolute paths too", () => {
  assert.equal(
    sanitizeCommand([
      "run",
      "--profile",
      "C:\\Users\\bob\\p.jsonc",
      "--out",
      "D:/bench/out",
      "--out=\\\\nas\\share\\r",
    ]),
    "run --profile <abs-path>/p.jsonc --out <abs-path>/out --out=<abs-path>/r",
  );
});

Deno.test("URLs, relative paths and plain values stay; a path inside free text is replaced", () => {
  assert.equal(
    sanitizeCommand([
      "run",
      "--url",
      "http://127.0.0.1:8080",
      "--url=http://[::1]:8080/v1",
      "--out",
      "bench/results",
      "--out",
      "./out",
      "--track-notes",
      "built from /opt/src/llama.cpp",
    ]),
    "run --url http://127.0.0.1:8080 '--url=http://[::1]:8080/v1' --out bench/results --out ./out --track-notes " +
      "'built from <abs-path>/llama.cpp'",
  );
});

Deno.test("arguments a shell would split or expand are single-quoted", () => {
  assert.equal(
    sanitizeCommand(["run", "--background", "it's busy", "--track", "custom"]),
    "run --background 'it'\\''s busy' --track custom",
  );
});

Deno.test("no absolute machine path survives in any argument", () => {
  const argv = ["run", "--out", "/var/tmp/run.y4N8S6/c", "--profile", "/opt/kit/profiles/x.jsonc", "--x=/mnt/a"];
  const command = sanitizeCommand(argv);
  for (const leak of ["/var", "run.y4N8S6", "/opt", "kit", "/mnt"]) assert.ok(!command.includes(leak), command);
});
