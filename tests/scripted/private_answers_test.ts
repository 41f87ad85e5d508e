/**
 * Redaction never changes a verdict or a count, and never makes the tool reject its own result: answers, reasoning,
 * tool calls, error messages and usage values full of private data of every kind the sanitizer redacts give a
 * result that `report` accepts with 0 problems, publish none of it, and keep the verdicts scored on the text as
 * the engine sent it. The same holds for a sanitizer that is not idempotent and changes lengths.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cleanup, runScripted, type ScriptedRun } from "./_harness.ts";
import { createSanitizer } from "../../sanitize/sanitize.ts";
import { resultGlance, type Sanitizers } from "../../report/mod.ts";
import { folderReader, KNOWN_PROTOCOLS, verifyFolder } from "../../site/mod.ts";
import { SITE_BUNDLE } from "../site/_bundle.ts";

/** One string of each kind sanitize/sanitize.ts redacts today (the run's sanitizer context is below). */
const PRIVATE: Record<string, string> = {
  "home folder (Linux)": "/home/alice/models/q.gguf",
  "home folder (macOS)": "/Users/alice/Library/notes",
  "root's home": "/root/.cache/x",
  "home folder (Windows)": "C:\\Users\\alice\\secrets.txt",
  "home folder outside /home": "/var/lib/alice/work",
  "user name": "alice",
  "host name": "orion.lab.example",
  "private IPv4 10/8": "10.1.2.3",
  "private IPv4 172.16/12": "172.20.0.9",
  "private IPv4 192.168/16": "192.168.1.20",
  "link-local IPv4": "169.254.7.7",
  "unique local IPv6": "fd12:3456:789a::1",
  "link-local IPv6": "fe80::1%eth0",
  "literal secret": "hunter2-literal",
  "authorization header": "Authorization: Bearer abcdefgh12345678",
  "bearer token": "Bearer zyxwvuts98765432",
  "OpenAI key": "sk-abcdefghijklmnop1234",
  "Hugging Face token": "hf_abcdefghijklmnopqrstu",
  "GitHub token": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
  "GitHub fine-grained token": "github_pat_abcdefghijklmnopqrstuvwxyz0123",
  "Slack token": "xoxb-1234567890ab",
  "AWS key id": "AKIAABCDEFGHIJKLMNOP",
  "GitLab token": "glpat-abcdefghijklmnopqrst",
  "JSON secret field": '"api_key": "value-12345"',
  "environment secret": "HF_TOKEN=abc12345xyz",
  "secret flag": "--api-key s3cr3tvalue",
  "password field": "password: pa55word",
};
/** The parts of each private string that must not survive in any published file. */
const LEAKS = [
  "alice",
  "orion.lab",
  "10.1.2.3",
  "172.20.0.9",
  "192.168.1.20",
  "169.254.7.7",
  "fd12:3456",
  "fe80::1",
  "hunter2-literal",
  "abcdefgh12345678",
  "zyxwvuts98765432",
  "sk-abcdefghijklmnop1234",
  "hf_abcdefghijklmnopqrstu",
  "ghp_abcdefghij",
  "github_pat_abcdefghij",
  "xoxb-1234567890ab",
  "AKIAABCDEFGHIJKLMNOP",
  "glpat-abcdefghij",
  "value-12345",
  "abc12345xyz",
  "s3cr3tvalue",
  "pa55word",
  "/root/.cache",
];
const ALL = Object.values(PRIVATE).join(" | ");

async function publishedText(run: ScriptedRun): Promise<string> {
  const files = ["results.json", "outputs.jsonl", "README.md", "config.json"];
  const texts = await Promise.all(files.map((f) => Deno.readTextFile(join(run.report.folder, f))));
  return texts.join("\n");
}

Deno.test("answers, tool calls, errors and usage full of every kind of private data: report finds 0 problems", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({
      deps: {
        sanitizers: createSanitizer({
          username: "alice",
          hostname: "orion.lab.example",
          homeDir: "/var/lib/alice",
          secrets: ["hunter2-literal"],
        }),
      },
      mock: {
        script: {
          // A wrong answer quoting everything (its reason quotes and cuts it), reasoning with everything too.
          "sanity-I4": { answer: { kind: "text", text: ALL } },
          "sanity-I2": { answer: { kind: "text", text: `[-4,1,2,9] ${ALL}` } },
          "sanity-R1": {
            answer: { kind: "text", text: `ORBIT-731 (read from ${PRIVATE["private IPv4 192.168/16"]})` },
          },
          // Right answers that name the host: redaction would turn "Orion" into a placeholder.
          "sanity-I3": {},
          "sanity-T4": {},
          "sanity-T2": {
            answer: {
              kind: "tool_call",
              name: "get_weather",
              arguments: { city: PRIVATE["home folder (Linux)"], unit: PRIVATE["OpenAI key"] },
            },
          },
          "sanity-T1": { fault: { kind: "http_error", status: 500, message: `cannot open ${ALL}` } },
          "performance-short-r2": { fault: { kind: "error_event", afterTokens: 3, message: `failed near ${ALL}` } },
          "performance-short-r3": {
            usageJson: `{"completion_tokens":"${PRIVATE["home folder (Linux)"]}/and/more","prompt_tokens":80}`,
          },
          "*": { reasoningTokens: 4 },
        },
      },
    });
    assert.deepEqual(run.problems, [], "report finds no problem");
    assert.deepEqual(run.report.validationProblems, [], "the runner's own check agrees");
    const published = await publishedText(run);
    for (const leak of LEAKS) assert.ok(!published.includes(leak), `"${leak}" was published`);
    // Scored on the text as the engine sent it: I3 and T4 pass although their published text is redacted.
    assert.equal(run.byId.get("sanity-I3")!.evaluation?.passed, true);
    assert.equal(run.byId.get("sanity-T4")!.evaluation?.passed, true);
    assert.equal(run.byId.get("sanity-I4")!.evaluation?.passed, false);
    assert.equal(run.result.quality.passed, 7, "I1, I3, R2, R3, R4, T3 and T4 pass, as scored before redaction");
    const overrides = run.result.extensions?.record_overrides as Record<string, string[]>;
    assert.deepEqual(overrides["sanity-I3"], ["/evaluation/passed", "/evaluation/reason"]);
    const line = run.outputs.find((o) => o.request_id === "sanity-I3")!;
    assert.equal((line.record_overrides as Record<string, unknown>)["/evaluation/passed"], true);
    assert.match(String(line.final_answer), /<host>/, "the evidence holds the redacted answer");
    // The website's own check, which shares no code with report, verifies it too and says what it did not recompute.
    const site = await verifyFolder(folderReader(run.report.folder), { protocols: KNOWN_PROTOCOLS, ...SITE_BUNDLE });
    assert.deepEqual(site.reasons, [], "the site finds no problem");
    assert.equal(site.state, "verified");
    const stated = site.checks.find((c) => c.includes("stated by the runner"));
    assert.ok(stated?.includes("sanity-I3 /evaluation/passed"), `the site names each stated value: ${stated}`);
    // Every judge says in numbers how many verdicts it recomputed and how many it took as stated.
    const statedVerdicts = Object.values(overrides).filter((p) => p.some((x) => x.startsWith("/evaluation"))).length;
    assert.ok(statedVerdicts >= 2, JSON.stringify(overrides));
    const tally = `${
      12 - statedVerdicts
    } verdicts recomputed from the saved outputs, ${statedVerdicts} stated by the runner`;
    assert.ok(
      site.checks.some((c) => c.includes(tally)),
      `the site's check says "${tally}": ${site.checks.join("\n")}`,
    );
    assert.match(
      resultGlance(run.result).status,
      new RegExp(
        `sanity 7/12 \\(${12 - statedVerdicts} verdicts recomputed from the evidence, ${statedVerdicts} stated`,
      ),
    );
    assert.deepEqual(
      site.facts?.statedValues.find((s) => s.id === "sanity-I3")?.pointers,
      ["/evaluation/passed", "/evaluation/reason"],
      "the entry page lists them",
    );
    // Counts are untouched: the string count is null with a reason, the others are the engine's numbers.
    assert.equal(run.byId.get("performance-short-r3")!.tokens.output_tokens, null);
    const sent = run.engine.requests.find((r) => r.requestId === "performance-short-r1")!;
    assert.equal(run.byId.get("performance-short-r1")!.tokens.input_tokens, sent.promptTokens);
    assert.equal(run.byId.get("performance-short-r1")!.tokens.output_tokens, sent.completionTokens);
  } finally {
    await cleanup(run);
  }
});

/** A sanitizer that is neither idempotent nor length-preserving: every pass wraps its words again. */
function wrappingSanitizer(): Sanitizers {
  const text = (value: string) => value.replaceAll("READY", "<host>READY").replaceAll("secret", "<secret>-secret");
  const json = (value: unknown): unknown => {
    if (typeof value === "string") return text(value);
    if (Array.isArray(value)) return value.map(json);
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, json(v)]));
    }
    return value;
  };
  return { text, json };
}

Deno.test("with a sanitizer that is not idempotent and changes lengths, the result still passes report", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({
      deps: { sanitizers: wrappingSanitizer() },
      mock: {
        script: {
          "sanity-I1": { answer: { kind: "text", text: "a secret answer, not JSON, quoted and cut in the reason" } },
          "sanity-T1": { fault: { kind: "http_error", status: 500, message: "the secret store said no" } },
          "performance-short-r1": { answer: { kind: "text", text: "secret ".repeat(40) } },
        },
      },
    });
    assert.deepEqual(run.problems, []);
    assert.deepEqual(run.report.validationProblems, []);
    // I4's right answer "READY" is published with a placeholder but keeps its verdict, stated in the evidence.
    assert.equal(run.byId.get("sanity-I4")!.evaluation?.passed, true);
    const overrides = run.result.extensions?.record_overrides as Record<string, string[]>;
    assert.ok(overrides["sanity-I4"]?.includes("/evaluation/passed"), JSON.stringify(overrides));
    const i1 = run.byId.get("sanity-I1")!.evaluation!;
    assert.equal(i1.passed, false);
    assert.ok(i1.reason.includes("<secret>-secret") && !i1.reason.includes("<<secret>"), "sanitized once");
    const site = await verifyFolder(folderReader(run.report.folder), { protocols: KNOWN_PROTOCOLS, ...SITE_BUNDLE });
    assert.deepEqual(site.reasons, [], "the site applies the stated verdict too");
    assert.ok(site.facts?.verdicts.find((v) => v.id === "sanity-I4")?.stated, "and labels it stated");
  } finally {
    await cleanup(run);
  }
});

const TAIL = "and then some more words ".repeat(6);

Deno.test("wrong answers that name a serial number or a machine id: the run accepts its own result, and so does the site", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({
      mock: {
        script: {
          // Each reason quotes its answer cut at 80 characters, and redaction moves the cut, so each reason is
          // stated in the evidence with that one placeholder in the answer.
          "sanity-R2": { answer: { kind: "text", text: `serial number SN8F3K2Q9X ${TAIL}` } },
          "sanity-R3": { answer: { kind: "text", text: `machine-id: 0123456789abcdef0123456789abcdef ${TAIL}` } },
        },
      },
    });
    assert.deepEqual(run.problems, [], "report finds no problem");
    assert.deepEqual(run.report.validationProblems, [], "the runner's own check agrees");
    const overrides = run.result.extensions?.record_overrides as Record<string, string[]>;
    assert.deepEqual(overrides["sanity-R2"], ["/evaluation/reason"]);
    assert.deepEqual(overrides["sanity-R3"], ["/evaluation/reason"]);
    const published = await publishedText(run);
    for (const leak of ["SN8F3K2Q9X", "0123456789abcdef0123"]) assert.ok(!published.includes(leak), leak);
    const site = await verifyFolder(folderReader(run.report.folder), { protocols: KNOWN_PROTOCOLS, ...SITE_BUNDLE });
    assert.deepEqual(site.reasons, [], "the site finds no problem");
  } finally {
    await cleanup(run);
  }
});
