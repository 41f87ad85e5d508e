/**
 * `deno task schema`: writes contract/result.schema.json, the published JSON Schema of results.json, from the one
 * definition in contract/result.ts. `--check` writes nothing and exits 1 when the committed file differs.
 */
import { fileURLToPath } from "node:url";
import { resultJsonSchema } from "../contract/mod.ts";
import { args, exit, readTextOutcome, writeStderr, writeStdout, writeTextOutcome } from "../runtime/mod.ts";

/** Where the published schema lives. */
export const SCHEMA_FILE = fileURLToPath(new URL("../contract/result.schema.json", import.meta.url));

/** The exact text of the published schema file. */
export function schemaText(): string {
  return `${JSON.stringify(resultJsonSchema(), null, 2)}\n`;
}

if (import.meta.main) {
  const check = args().includes("--check");
  const text = schemaText();
  if (check) {
    const current = await readTextOutcome(SCHEMA_FILE);
    const same = current.ok && current.value === text;
    (same ? writeStdout : writeStderr)(
      same ? "result.schema.json matches contract/result.ts\n" : "result.schema.json differs: run deno task schema\n",
    );
    exit(same ? 0 : 1);
  } else {
    const written = await writeTextOutcome(SCHEMA_FILE, text);
    if (!written.ok) {
      writeStderr(`Cannot write ${SCHEMA_FILE}: ${written.reason}\n`);
      exit(3);
    } else {
      writeStdout(`wrote ${SCHEMA_FILE}\n`);
    }
  }
}
