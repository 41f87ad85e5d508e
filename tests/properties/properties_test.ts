/** The property targets of _properties.ts, a few hundred cases each (`deno task fuzz` runs a million each). */
import fc from "fast-check";
import { TARGETS } from "./_properties.ts";

/** Cases per target in `deno task test`; the seed is fixed so a failure reproduces. */
const RUNS = 600;

for (const target of TARGETS) {
  Deno.test(`property: ${target.name}`, async () => {
    await fc.assert(target.property as fc.IAsyncPropertyWithHooks<unknown[]>, { numRuns: RUNS, seed: 20261201 });
  });
}
