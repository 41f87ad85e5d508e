import assert from "node:assert/strict";
import { slugFor } from "../../site/mod.ts";

Deno.test("every entry gets its own page folder, also when a suffixed name is another run's id", () => {
  const taken = new Set<string>();
  // "a b" becomes "a-b", taken; its index suffix "a-b-6" is the second run's own id: it must not be reused.
  const slugs = [["a-b", 0], ["a-b-6", 1], ["a b", 6], ["a b", 7], ["A-B", 8]].map(([id, index]) =>
    slugFor(id as string, index as number, taken)
  );
  assert.deepEqual(slugs, ["a-b", "a-b-6", "a-b-6-2", "a-b-7", "A-B-8"]);
  assert.equal(new Set(slugs.map((s) => s.toLowerCase())).size, slugs.length);
});

Deno.test("a run id without a usable character names its page by the entry's index", () => {
  const taken = new Set<string>();
  assert.equal(slugFor(null, 3, taken), "entry-3");
  assert.equal(slugFor("...", 4, taken), "entry-4");
  assert.equal(slugFor("entry-3", 5, taken), "entry-3-5");
});
