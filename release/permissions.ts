/**
 * deno.json permission sets as command-line flags. The sets in deno.json are the one source: `deno compile`
 * bakes the `run` set into the binary through these flags, and tests run the CLI under the same sets.
 */

/** Kinds of permission a set can grant, in the order flags are written. */
const KINDS = ["read", "write", "net", "env", "sys", "run", "ffi", "import"] as const;

/** One kind of permission in a deno.json set: everything, nothing, or a list. */
export type PermissionValue = boolean | readonly string[];

/** A deno.json permission set ("permissions": { "<name>": { ... } }). */
export type PermissionSet = Partial<Record<(typeof KINDS)[number], PermissionValue>>;

/**
 * The named set from deno.json text.
 * @throws {SyntaxError} when the text is not JSON; {RangeError} when the set is missing or holds an unknown kind
 * or a value that is neither a boolean nor a list of strings.
 */
export function permissionSetFrom(configText: string, name: string): PermissionSet {
  const config = JSON.parse(configText) as { permissions?: Record<string, unknown> };
  const set = config.permissions?.[name];
  if (set === undefined || set === null || typeof set !== "object" || Array.isArray(set)) {
    throw new RangeError(`Cannot read permission set "${name}": deno.json has no such set`);
  }
  const out: PermissionSet = {};
  for (const [kind, value] of Object.entries(set)) {
    if (!(KINDS as readonly string[]).includes(kind)) {
      throw new RangeError(`Cannot read permission set "${name}": unknown permission kind "${kind}"`);
    }
    const valid = typeof value === "boolean" || (Array.isArray(value) && value.every((v) => typeof v === "string"));
    if (!valid) {
      throw new RangeError(`Cannot read permission set "${name}": "${kind}" must be a boolean or a list of strings`);
    }
    out[kind as (typeof KINDS)[number]] = value as PermissionValue;
  }
  return out;
}

/**
 * `--allow-*` flags granting exactly `set`, with any kind in `overrides` replacing the set's value (a test's own
 * temporary folder for write, for example). `--no-prompt` comes first so a refusal is an error, never a question.
 */
export function permissionFlags(set: PermissionSet, overrides: PermissionSet = {}): string[] {
  const flags = ["--no-prompt"];
  for (const kind of KINDS) {
    const value = kind in overrides ? overrides[kind] : set[kind];
    if (value === undefined || value === false) continue;
    if (value === true) flags.push(`--allow-${kind}`);
    else if (value.length > 0) flags.push(`--allow-${kind}=${value.join(",")}`);
  }
  return flags;
}
