import assert from "node:assert/strict";
import { join } from "node:path";
import { loadProfile } from "../../../engine/load_profile.ts";

Deno.test("an unknown profile run from the toolkit's own folder names the one place it looked once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-profile-" });
  try {
    await assert.rejects(() => loadProfile("nonexistent", { toolkitDir: dir, cwd: dir }), (error: unknown) => {
      const message = error instanceof Error ? error.message : "";
      const path = join(dir, "profiles", "nonexistent.jsonc");
      assert.equal(message.split(path).length - 1, 1, message);
      assert.match(message, /^Cannot find profile "nonexistent": cannot read .* not found\. Give a profile name/);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an unknown profile names both places when the toolkit and the current folder differ", async () => {
  const toolkit = await Deno.makeTempDir({ prefix: "strata-profile-" });
  const cwd = await Deno.makeTempDir({ prefix: "strata-profile-" });
  try {
    await assert.rejects(() => loadProfile("nonexistent", { toolkitDir: toolkit, cwd }), (error: unknown) => {
      const message = error instanceof Error ? error.message : "";
      assert.ok(message.includes(join(toolkit, "profiles", "nonexistent.jsonc")), message);
      assert.ok(message.includes(join(cwd, "profiles", "nonexistent.jsonc")), message);
      return true;
    });
  } finally {
    await Deno.remove(toolkit, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("a profile file over 1 MiB is refused unread; one with a key given twice is refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-profile-" });
  try {
    const big = join(dir, "big.jsonc");
    await Deno.writeTextFile(big, `{"label": "x", "engine": "/bin/x", "port": 1} // ${"x".repeat(1024 * 1024)}`);
    await assert.rejects(() => loadProfile(big, { toolkitDir: null, cwd: dir }), /more than the 1048576/);
    const twice = join(dir, "twice.jsonc");
    await Deno.writeTextFile(twice, '{"label": "x", "engine": "/bin/x", "port": 1, "label": "y"}');
    await assert.rejects(() => loadProfile(twice, { toolkitDir: null, cwd: dir }), /\/label: key "label" repeated/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
