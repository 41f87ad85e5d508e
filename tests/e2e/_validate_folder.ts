/** Strict validation of a written result folder, as `report` does it; shared by the Deno e2e and Bun smoke tests. */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { LoadedBundle } from "../../fixtures/mod.ts";
import { type Problem, validateResultText } from "../../report/validate.ts";

/** Every problem the strict validator finds in `folder`/results.json, artifact bytes included. */
export async function validateFolder(folder: string, bundle: LoadedBundle): Promise<Problem[]> {
  const text = await readFile(join(folder, "results.json"), "utf8");
  return await validateResultText(text, {
    maxSharedPrefixTokens: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.max_shared_prefix_tokens])),
    corpusSha256: bundle.corpusSha256,
    fixtures: bundle.fixtures,
    readArtifact: async (path) => {
      try {
        return new Uint8Array(await readFile(join(folder, path)));
      } catch {
        return null;
      }
    },
  });
}
