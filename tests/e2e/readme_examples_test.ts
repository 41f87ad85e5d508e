/**
 * README's examples, run as a person runs them, in a terminal (tmux, 100 columns): demo, run against a server you
 * started (the scripted engine here, at the addresses README names), load, compare with the example spec, and the
 * site's check of the run's folder. Each exits as documented and ends with the one screen README shows: at most 15
 * lines, none wider than 100 columns, the same status line, the folder or file last.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadBundle } from "../../fixtures/mod.ts";
import { type MockEngine, startMockEngine } from "../../mock/mod.ts";
import { openTerminal, tmuxAvailable } from "./_tmux.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const README = readFileSync(join(REPO, "README.md"), "utf8");

/** Each `npx strata-bench` line (but the mock's) of README's ```sh blocks, with the next ```text block before the next sh. */
function examples(): { words: string; shown: string }[] {
  const out: { words: string; shown: string }[] = [];
  const blocks = [...README.matchAll(/```(sh|text)\n([\s\S]*?)```/g)].map((m) => ({ kind: m[1]!, body: m[2]! }));
  blocks.forEach((block, i) => {
    const next = blocks[i + 1];
    if (block.kind !== "sh" || next?.kind !== "text") return;
    const line = block.body.split("\n").find((l) => /^npx strata-bench (?!mock)/.test(l));
    if (line !== undefined) out.push({ words: line.replace(/\s+#\s.*$/, "").trim(), shown: next.body });
  });
  return out;
}

async function engine(): Promise<MockEngine> {
  const bundle = await loadBundle();
  return await startMockEngine({
    timeScale: 0.05,
    slots: 4,
    tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
  });
}

/** The ending: from the last line that opens it (the command's name and a colon) to the end. */
function ending(screen: string, command: string): string[] {
  const lines = screen.trimEnd().split("\n");
  const exit = lines.findLastIndex((l) => l.startsWith("EXIT="));
  const body = lines.slice(0, exit);
  const start = body.findLastIndex((l) => l.startsWith(`${command}: `));
  return start < 0 ? [] : body.slice(start);
}

Deno.test({
  name: "README's examples run as written and each ends with the one screen README shows",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    assert.ok(await tmuxAvailable(), "install tmux (apt-get install -y tmux)");
    const listed = examples();
    assert.deepEqual(listed.map((e) => e.words.split(" ")[2] ?? e.words), [
      "demo",
      "run",
      "load",
      "compare",
      "site",
    ]);
    const before = new Set(await readdir(join(REPO, "bench-results")).catch(() => [] as string[]));
    const baseline = await engine(), candidate = await engine();
    const terminal = await openTerminal(REPO, { columns: 100, rows: 45 });
    let folder = "";
    try {
      for (const { words, shown } of listed) {
        const command = words.split(" ")[2]!;
        const line = words.replace("npx strata-bench", `node ${join(REPO, "bin", "strata-bench.mjs")}`)
          .replace("http://127.0.0.1:8080", baseline.url).replace("http://127.0.0.1:8081", candidate.url)
          .replace("bench-results/FOLDER", folder).replace(/ demo$/, " demo --time-scale 0");
        await terminal.type("clear");
        await terminal.type(`${line}; echo EXIT=$?`);
        const screen = await terminal.waitFor(/^EXIT=\d+$/m, 240_000);
        const code = Number(/^EXIT=(\d+)$/m.exec(screen)![1]);
        const expected = { demo: [0], run: [1], load: [0], compare: [0, 1], site: [0] }[command] ?? [0];
        assert.ok(expected.includes(code), `${words}: exit ${code}\n${screen}`);
        if (command === "site") {
          assert.match(screen, /verified: every recomputed value equals results\.json/);
          continue;
        }
        const end = ending(screen, command);
        // The words before the figures; a gate between two scripted engines may go either way.
        const status = shown.split("\n")[0]!.split(/[;(]/)[0]!.replace(/(PASS|FAIL)\s*$/, "");
        assert.ok(end[0]?.startsWith(status), `${words}: ${end[0]} does not open like README's "${status}"`);
        assert.ok(end.length >= 3 && end.length <= 15, `${words}: ${end.length} lines\n${end.join("\n")}`);
        for (const l of end.slice(0, -1)) assert.ok(l.length <= 100, `${words}: ${l}`);
        assert.match(end.at(-1)!, /(^|\/)bench-results\/\S+$/, `the folder or file is the last line:\n${screen}`);
        if (command === "run") folder = end.at(-1)!;
      }
    } finally {
      await terminal.close();
      await baseline.close();
      await candidate.close();
      for (const name of await readdir(join(REPO, "bench-results")).catch(() => [] as string[])) {
        if (!before.has(name)) await rm(join(REPO, "bench-results", name), { recursive: true, force: true });
      }
    }
  },
});
