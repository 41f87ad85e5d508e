/**
 * An anonymous token of the machine a run measured: the SHA-256 of a fixed label and the operating system's machine
 * id (systemd's /etc/machine-id, or D-Bus's copy). Two results of one machine carry the same token, so a review can
 * refuse a "reproduction" from the machine that made the original; the token reveals nothing else (the id is 128
 * random bits, and the label keeps the hash from matching any other use of it). It is a check against honest
 * mistakes, not against a forger, who can write any token: the person rule rests on the submitters' handles.
 */
import { sha256Hex } from "../contract/mod.ts";
import type { ProbeDeps } from "./_deps.ts";

const LABEL = "strata-bench machine token v1\n";
const SOURCES = ["/etc/machine-id", "/var/lib/dbus/machine-id"];

/** The token, or null with why it could not be made. */
export async function machineToken(
  deps: Pick<ProbeDeps, "readText" | "platform">,
): Promise<{ token: string; reason: null } | { token: null; reason: string }> {
  if (deps.platform !== "linux") {
    return {
      token: null,
      reason: `no machine id is read on ${deps.platform} (only Linux's /etc/machine-id); results of this machine ` +
        "cannot be told apart from another machine's",
    };
  }
  for (const path of SOURCES) {
    const read = await deps.readText(path);
    const id = read.ok ? read.value.trim().toLowerCase() : "";
    if (/^[0-9a-f]{32}$/.test(id)) return { token: sha256Hex(LABEL + id), reason: null };
  }
  return {
    token: null,
    reason: `neither ${SOURCES.join(" nor ")} holds a machine id (32 hex digits); results of this machine cannot ` +
      "be told apart from another machine's",
  };
}
