// deno-lint-ignore-file no-explicit-any
/**
 * The launchers a user copies: the Kubernetes Indexed Job manifest is validated against the Kubernetes API schema
 * (kubernetes-models, generated from the API's OpenAPI definitions) and its load arguments are parsed by `load`
 * itself; the Slurm batch script is checked by bash (the Slurm tier, tests/slurm, runs it on a real local cluster).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { spawnSync } from "node:child_process";
import { parseAllDocuments } from "yaml";
import { Job } from "kubernetes-models/batch/v1";
import { parseLoadCommand } from "../../cli/load.ts";

const MANIFEST = new URL("../../launchers/kubernetes/strata-load-job.yaml", import.meta.url);
const SBATCH = new URL("../../launchers/slurm/strata-load.sbatch", import.meta.url);
const CONTAINERFILE = new URL("../../launchers/kubernetes/Containerfile", import.meta.url);

async function documents(): Promise<Record<string, any>[]> {
  return parseAllDocuments(await readFile(MANIFEST, "utf8")).map((d) => d.toJS());
}

Deno.test("the Indexed Job manifest is valid against the Kubernetes API schema, and a broken one is not", async () => {
  const docs = await documents();
  assert.deepEqual(docs.map((d) => d.metadata.name), ["strata-load", "strata-load-merge"]);
  for (const doc of docs) new Job(doc).validate();
  for (
    const breakIt of [
      (d: Record<string, any>) => d.spec.completionMode = "Sharded",
      (d: Record<string, any>) => d.spec.parallelism = "4",
      (d: Record<string, any>) => delete d.spec.template,
      (d: Record<string, any>) => d.spec.template.spec.containers[0].volumeMounts[0].mountPath = 7,
    ]
  ) {
    const broken = structuredClone(docs[0]!);
    breakIt(broken);
    assert.throws(() => new Job(broken).validate(), /must be|required/);
  }
});

Deno.test("one pod per node on host networking, a results volume, N shards, and load arguments that load accepts", async () => {
  const [job, merge] = await documents();
  const spec = job!.spec;
  assert.equal(spec.completionMode, "Indexed");
  assert.equal(spec.parallelism, spec.completions);
  const pod = spec.template.spec;
  assert.equal(pod.hostNetwork, true);
  const anti = pod.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0];
  assert.equal(anti.topologyKey, "kubernetes.io/hostname");
  assert.deepEqual(anti.labelSelector.matchLabels, spec.template.metadata.labels);
  const container = pod.containers[0];
  assert.equal(container.volumeMounts[0].name, pod.volumes[0].name);
  // Kubernetes expands $(VAR) from the container's environment; the Job controller adds JOB_COMPLETION_INDEX.
  const env: Record<string, string> = { JOB_COMPLETION_INDEX: "2", NODE_NAME: "gpu-node-7" };
  const startAt = String(Date.now() + 120_000);
  const args = (container.args as string[]).map((a) =>
    a.replace("START_AT_MS", startAt).replace(/\$\((\w+)\)/g, (_m, v: string) => env[v] ?? "")
  );
  assert.equal(args[0], "load");
  const prior = Deno.env.get("JOB_COMPLETION_INDEX");
  Deno.env.set("JOB_COMPLETION_INDEX", "2");
  try {
    const command = parseLoadCommand(args.slice(1));
    const options = command.options;
    assert.deepEqual([options.shard?.index, options.shard?.count], [2, spec.completions]);
    assert.equal(options.shard?.hostLabel, "gpu-node-7");
    assert.equal(command.files.folder, "/results"); // each shard writes a new file there, named with its shard
  } finally {
    if (prior === undefined) Deno.env.delete("JOB_COMPLETION_INDEX");
    else Deno.env.set("JOB_COMPLETION_INDEX", prior);
  }
  assert.match(
    merge!.spec.template.spec.containers[0].args[0],
    /strata-bench load merge \/results\/\*-load-\*-shard-\*\.jsonl --out \/results/,
  );
});

Deno.test("the Slurm batch script is valid bash and runs one shard per task with --shard auto and one start time", async () => {
  const text = await readFile(SBATCH, "utf8");
  const check = spawnSync("bash", ["-n", SBATCH.pathname]);
  assert.equal(check.status, 0, String(check.stderr));
  assert.match(text, /^#SBATCH --ntasks-per-node=1$/m);
  assert.match(text, /--shard auto --start-at "\$STRATA_START_AT"/);
  assert.match(text, /export [^\n]*STRATA_START_AT/);
  assert.match(text, /load merge "\$RESULTS"\/\*-load-\*-shard-\*\.jsonl --out "\$RESULTS"/);
});

Deno.test("the manifest names the image its Containerfile builds: the Linux release binary as strata-bench on PATH", async () => {
  const text = await readFile(CONTAINERFILE, "utf8");
  const docs = await documents();
  const images = docs.map((d) => d.spec.template.spec.containers[0].image as string);
  assert.equal(new Set(images).size, 1, "the load and merge Jobs run one image");
  const build = /^#\s+(?:podman|docker) build -f launchers\/kubernetes\/Containerfile -t (\S+) dist$/m.exec(text);
  assert.ok(build, "the Containerfile says how to build the image");
  assert.equal(build[1], images[0]);
  assert.match(text, /^#\s+deno task compile --with bun --target linux-x64 --out dist$/m);
  // The compile step names a Bun build strata-bench-<version>-<target>-bun; the image puts it on PATH.
  assert.match(text, /^COPY strata-bench-\*-linux-x64-bun \/usr\/local\/bin\/strata-bench$/m);
  assert.equal(docs[0]!.spec.template.spec.containers[0].command[0], "strata-bench");
  const user = /^USER (\d+):\d+$/m.exec(text);
  assert.ok(user, "the image runs as a user, not root");
  for (const d of docs) assert.equal(d.spec.template.spec.securityContext.fsGroup, Number(user[1]));
});
