import assert from "node:assert/strict";
import { parseCommandLine } from "../../../cli/submit.ts";
import { prepareBranch, SubmitRefusal } from "../../../cli/_submit_repo.ts";
import { exitCodeOf } from "../../../cli/exit_codes.ts";

Deno.test("submit needs one folder and --repo; --branch is optional", () => {
  assert.deepEqual(parseCommandLine(["f", "--repo", "r"]), { folder: "f", repo: "r", branch: null });
  assert.deepEqual(parseCommandLine(["f", "--repo", "r", "--branch", "b"]), { folder: "f", repo: "r", branch: "b" });
  assert.throws(() => parseCommandLine(["f"]), /submit needs --repo CLONE/);
  assert.throws(() => parseCommandLine(["f", "--repo="]), /submit needs --repo CLONE/);
  assert.throws(() => parseCommandLine(["--repo", "r"]), /submit needs one result folder, got 0/);
  assert.throws(() => parseCommandLine(["a", "b", "--repo", "r"]), /got 2/);
});

Deno.test("a refused folder exits 1, a clone that cannot take it exits 3", () => {
  assert.equal(exitCodeOf(new SubmitRefusal("x")), 1);
  assert.equal(exitCodeOf(new SubmitRefusal("x", "environment")), 3);
  assert.equal(exitCodeOf(new SubmitRefusal("x", "interrupted")), 4);
});

/** A git stand-in for a clean results repository's root; records every call. */
function cleanClone(calls: string[][]) {
  return (args: readonly string[]) => {
    calls.push([...args]);
    const reply = (stdout = "", code = 0) => Promise.resolve({ code, stdout, stderr: "" });
    if (args[0] === "rev-parse" && args[1] === "--show-toplevel") return reply("/r");
    if (args[0] === "rev-parse" && args[1] === "--absolute-git-dir") return reply("/r/.git");
    if (args[0] === "rev-parse" && args[1] === "--verify") return reply("", 1);
    return reply();
  };
}

Deno.test("a folder name or branch git would misread is refused before any branch is made", async () => {
  for (
    const [name, branch, said] of [
      ["-rf", "b", /rename it/],
      ["../up", "b", /rename it/],
      [".hidden", "b", /rename it/],
      ["ok-name", "--upload-pack=x", /no valid branch name/],
      ["ok-name", "refs/heads/x", /no valid branch name/],
      ["ok-name", "x".repeat(101), /no valid branch name/],
    ] as const
  ) {
    const calls: string[][] = [];
    const clone = { git: cleanClone(calls), exists: () => Promise.resolve(false), realRoot: "/r" };
    await assert.rejects(prepareBranch(clone, "/r", name, branch), said);
    assert.ok(!calls.some((c) => c[0] === "checkout"), `${name} ${branch}: no branch was made`);
  }
});
