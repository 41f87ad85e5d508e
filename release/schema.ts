/**
 * `deno task schema`: writes the published JSON Schemas from their one definition in contract/:
 * contract/result.schema.json (results.json, contract/result.ts), contract/evidence.schema.json (one
 * outputs.jsonl line, contract/evidence.ts) and contract/load-lines.schema.json (one line of what load and compare
 * write, contract/load_lines.ts). `--check` writes nothing and exits 1 when a committed file differs.
 */
import { fileURLToPath } from "node:url";
import { evidenceJsonSchema, loadLinesJsonSchema, resultJsonSchema } from "../contract/mod.ts";
import { args, exit, readTextOutcome, writeStderr, writeStdout, writeTextOutcome } from "../runtime/mod.ts";

/** The published schemas: file name in contract/ -> the document it holds. */
export const SCHEMAS = {
  "result.schema.json": resultJsonSchema,
  "evidence.schema.json": evidenceJsonSchema,
  "load-lines.schema.json": loadLinesJsonSchema,
} as const;

/** The exact text of the published schema file `name`. */
export function schemaText(name: keyof typeof SCHEMAS = "result.schema.json"): string {
  return `${JSON.stringify(SCHEMAS[name](), null, 2)}\n`;
}

if (import.meta.main) {
  const check = args().includes("--check");
  let code = 0;
  for (const name of Object.keys(SCHEMAS) as (keyof typeof SCHEMAS)[]) {
    const file = fileURLToPath(new URL(`../contract/${name}`, import.meta.url));
    const text = schemaText(name);
    if (check) {
      const current = await readTextOutcome(file);
      const same = current.ok && current.value === text;
      (same ? writeStdout : writeStderr)(
        same ? `${name} matches contract/\n` : `${name} differs: run deno task schema\n`,
      );
      if (!same) code = 1;
    } else {
      const written = await writeTextOutcome(file, text);
      if (!written.ok) {
        writeStderr(`Cannot write ${file}: ${written.reason}\n`);
        code = 3;
      } else {
        writeStdout(`wrote ${file}\n`);
      }
    }
  }
  exit(code);
}
