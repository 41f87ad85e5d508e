import assert from "node:assert/strict";
import { machineToken } from "../../../probe/machine_token.ts";
import { sha256Hex } from "../../../contract/mod.ts";
import { fakeDeps } from "./_fake.ts";

const ID = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";
const reader = (files: Record<string, string>) => fakeDeps({ files }).readText;

Deno.test("the token is the labelled hash of the machine id: equal on one machine, other on another, never the id", async () => {
  const one = await machineToken({ platform: "linux", readText: reader({ "/etc/machine-id": `${ID}\n` }) });
  const again = await machineToken({ platform: "linux", readText: reader({ "/var/lib/dbus/machine-id": ID }) });
  const other = await machineToken({
    platform: "linux",
    readText: reader({ "/etc/machine-id": ID.replace("0f", "1f") }),
  });
  assert.match(one.token ?? "", /^[0-9a-f]{64}$/);
  assert.equal(one.token, again.token, "D-Bus's copy of the same id gives the same token");
  assert.notEqual(one.token, other.token);
  assert.notEqual(one.token, sha256Hex(ID), "labelled, so it matches no bare hash of the id");
  assert.ok(!one.token?.includes(ID.slice(0, 8)));
});

Deno.test("no machine id (absent, empty, malformed, another OS) is a null token with the reason", async () => {
  for (const files of [{}, { "/etc/machine-id": "" }, { "/etc/machine-id": "uninitialized\n" }]) {
    const read = await machineToken({ platform: "linux", readText: reader(files) });
    assert.equal(read.token, null);
    assert.match(read.reason ?? "", /holds a machine id \(32 hex digits\)/);
  }
  const mac = await machineToken({ platform: "darwin", readText: reader({ "/etc/machine-id": ID }) });
  assert.equal(mac.token, null);
  assert.match(mac.reason ?? "", /no machine id is read on darwin/);
});
