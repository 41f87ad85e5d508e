import assert from "node:assert/strict";
import { permissionFlags, permissionSetFrom } from "../../../release/permissions.ts";

const CONFIG = JSON.stringify({
  permissions: {
    narrow: { net: ["127.0.0.1", "[::1]"], read: true, write: ["out"], env: false, sys: [] },
    odd: { network: true },
    bad: { read: "yes" },
  },
});

Deno.test("a permission set becomes exact --allow flags in a fixed order, after --no-prompt", () => {
  assert.deepEqual(permissionFlags(permissionSetFrom(CONFIG, "narrow")), [
    "--no-prompt",
    "--allow-read",
    "--allow-write=out",
    "--allow-net=127.0.0.1,[::1]",
  ]);
});

Deno.test("an override replaces one kind of the set and leaves the others", () => {
  const flags = permissionFlags(permissionSetFrom(CONFIG, "narrow"), { write: ["/tmp/x"], read: false });
  assert.deepEqual(flags, ["--no-prompt", "--allow-write=/tmp/x", "--allow-net=127.0.0.1,[::1]"]);
});

Deno.test("a missing set, an unknown kind or a value of the wrong type is a RangeError naming it", () => {
  assert.throws(() => permissionSetFrom(CONFIG, "absent"), { name: "RangeError", message: /"absent".*no such set/ });
  assert.throws(() => permissionSetFrom(CONFIG, "odd"), {
    name: "RangeError",
    message: /unknown permission kind "network"/,
  });
  assert.throws(() => permissionSetFrom(CONFIG, "bad"), { name: "RangeError", message: /"read" must be a boolean/ });
  assert.throws(() => permissionSetFrom("{", "narrow"), SyntaxError);
});
