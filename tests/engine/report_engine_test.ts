/**
 * Tier 3 for the results that travel: three real-engine result folders (two runs of one configuration, each on a
 * freshly started llama-server, and one run with another context size), their READMEs' first screens, and
 * `report A B C` comparing them as a person runs it (mod.ts under the read-only permission set). The READMEs'
 * first 15 lines and the comparison are saved under $STRATA_CI_LOGS (or a temporary folder) for a reader.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { closeIdleConnections } from "../../client/mod.ts";
import { writeStderr } from "../../runtime/mod.ts";
import { runAgainst, startTinyEngine, tempDir, tinyProfile } from "./_engine.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "real engine: three result folders, their READMEs' first screen, and report comparing them",
  options,
  async () => {
    const dir = await tempDir();
    const logs = Deno.env.get("STRATA_CI_LOGS") ?? dir.path;
    await Deno.mkdir(logs, { recursive: true });
    try {
      const base = (await tinyProfile()).args;
      const larger = base.map((arg, i) => (base[i - 1] === "-c" ? "24576" : arg));
      const folders: string[] = [];
      for (const [name, args] of [["a1", base], ["a2", base], ["b", larger]] as const) {
        const engine = await startTinyEngine({ args: [...args] });
        try {
          const run = await runAgainst(engine, join(dir.path, name));
          assert.deepEqual(run.report.validationProblems, []);
          assert.equal(run.result.run.status, "complete", JSON.stringify(run.result.extensions?.nonconforming_reasons));
          folders.push(run.folder);
        } finally {
          await engine.stop();
          closeIdleConnections();
        }
      }

      const firstScreens: string[] = [];
      for (const folder of folders) {
        const lines = (await readFile(join(folder, "README.md"), "utf8")).split("\n").slice(0, 15);
        const first = lines.join("\n");
        firstScreens.push(`==> ${folder.split("/").pop()}/README.md (first 15 lines)\n${first}\n`);
        assert.match(
          lines[0]!,
          /^# Standard benchmark: .*strata-bench\/tiny-qwen3 \/ F16 \/ strata-qwen38-thinking-v1-draft\.1$/,
        );
        assert.match(first, /- \*\*Status:\*\* complete; sanity 0\/12/);
        assert.match(first, /- \*\*Machine:\*\* .*CPU /);
        assert.match(first, /- \*\*Model:\*\* strata-bench\/tiny-qwen3; quantization F16; file /);
        assert.match(first, /- \*\*Engine:\*\* b\d+-[0-9a-f]+ \(llama\.cpp dialect\); commit [0-9a-f]{40}/);
        assert.match(first, /model load \d+\.\d s \(the runner started the engine from its profile\)/);
        assert.match(first, /\| Prompt tok\/s \| left out \(\\\*\) \| \d+\.\d \\\[/);
        assert.match(first, /\| Decode tok\/s \| \d+\.\d \\\[/);
        assert.match(first, /\| TTFT s \| \d+\.\d{3} \\\[/);
      }

      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-P=report", "--no-prompt", "mod.ts", "report", ...folders],
        cwd: REPO,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(output.stdout);
      const stderr = new TextDecoder().decode(output.stderr);
      await Deno.writeTextFile(join(logs, "report-engine-readmes.txt"), firstScreens.join("\n"));
      await Deno.writeTextFile(join(logs, "report-engine-comparison.md"), stdout);
      writeStderr(`${firstScreens.join("\n")}\n${stdout}\n(saved under ${logs})\n`);
      assert.equal(output.code, 0, stderr);
      assert.match(stdout, /^# Comparison of 3 result folders\n/);
      assert.doesNotMatch(stdout, /separate groups/, "one protocol and one model");
      assert.match(stdout, /- \*\*A\*\*: context tokens 20480; [^\n]*\(2 run\(s\): /);
      assert.match(stdout, /- \*\*B\*\*: context tokens 24576; [^\n]*\(1 run\(s\): /);
      for (
        const row of ["A | short", "A | prompt-4k", "A | prompt-16k", "B | short", "B | prompt-4k", "B | prompt-16k"]
      ) {
        assert.match(stdout, new RegExp(`\\| ${row.replace("|", "\\|")} \\| \\d+ \\| \\d+`), row);
      }
      // Config A's two runs are pooled (n=6) unless their ranges part and their medians differ by more than 10%,
      // which two real runs on a busy 2-core machine sometimes do; then each run's median is shown on its own.
      assert.match(
        stdout,
        /\| A \| prompt-4k \| \d+ \| \d+ \| [^|]+ \| 2 \| (\d+\.\d \\\[\d+\.\d-\d+\.\d\\\] n=6|runs disagree: \d+\.\d; \d+\.\d \(not pooled\)) \|/,
      );
    } finally {
      await dir.remove();
    }
  },
);
