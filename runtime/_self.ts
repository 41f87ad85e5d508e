/**
 * How this toolkit starts itself again as a child process (`load --workers`): the same runtime executable, and
 * under Deno load's V8 flags and the permissions this process holds. Deno tells no process its own flags, so each
 * kind is asked of Deno.permissions: a kind granted whole is passed whole; otherwise only those of the child's
 * named paths, hosts, variables and system facts that this process holds (never more than the parent has). A
 * compiled strata-bench starts its own binary, whose permissions are built in (deno compile) or absent (Bun).
 */
import process from "node:process";

/**
 * The V8 flags `load` and `compare` run with (deno.json's tasks and the compiled binaries carry the same; a test
 * holds them together): a young generation of 8 MB, gc exposed for the full collection before the measured
 * schedule, V8's helper threads kept, and Maglev as the top tier (docs/commands.md says why).
 */
export const LOAD_V8_FLAGS = "--max-semi-space-size=8,--expose-gc,--maglev-as-top-tier";

/** What the child will touch, by permission kind (each item as Deno's --allow-<kind>= list takes it). */
export type ChildNeeds = Readonly<Record<"read" | "write" | "net" | "env" | "sys" | "run", readonly string[]>>;

type Descriptor = { name: string; path?: string; host?: string; variable?: string; kind?: string; command?: string };
interface DenoSelf {
  execPath(): string;
  mainModule: string;
  permissions: { querySync(d: Descriptor): { state: string } };
}

const FIELD = { read: "path", write: "path", net: "host", env: "variable", sys: "kind", run: "command" } as const;

/** The permission flags that give a child what this Deno process holds of `needs`. */
function permissionFlags(deno: DenoSelf, needs: ChildNeeds): string[] {
  const flags: string[] = [];
  for (const [name, field] of Object.entries(FIELD) as [keyof ChildNeeds, string][]) {
    const granted = (d: Descriptor) => deno.permissions.querySync(d).state === "granted";
    if (granted({ name })) {
      flags.push(`--allow-${name}`);
      continue;
    }
    // A comma would split Deno's list: such an item is left out (the child then meets the refusal the parent would).
    const held = needs[name].filter((item) => !item.includes(",") && granted({ name, [field]: item }));
    if (held.length > 0) flags.push(`--allow-${name}=${held.join(",")}`);
  }
  return flags;
}

/**
 * The command line that runs `entry` (the toolkit's mod.ts; `config` its deno.json, or null) as this process runs,
 * followed by the child's own arguments.
 */
export function selfCommand(
  entry: string,
  config: string | null,
  needs: ChildNeeds,
): { command: string; args: string[] } {
  const g = globalThis as { Deno?: DenoSelf; Bun?: { main: string } };
  if (g.Deno) {
    const command = g.Deno.execPath();
    if (g.Deno.mainModule.includes("/deno-compile-")) return { command, args: [] };
    const configFlags = config === null ? [] : ["--config", config];
    const v8 = `--v8-flags=${LOAD_V8_FLAGS}`;
    return {
      command,
      args: ["run", "-q", v8, "--no-prompt", ...configFlags, ...permissionFlags(g.Deno, needs), entry],
    };
  }
  const compiled = g.Bun !== undefined && (g.Bun.main.startsWith("/$bunfs/") || g.Bun.main.includes("~BUN"));
  return { command: process.execPath, args: compiled ? [] : [entry] };
}
