#!/usr/bin/env bash
# The Slurm tier: a real one-node Slurm cluster (Debian's slurm-wlm and munge, installed here when missing) runs the
# project's Slurm launcher (launchers/slurm/strata-load.sbatch) as 4 tasks on this node, each a load shard against
# its own scripted engine on loopback, through the release binary on PATH exactly as the launcher runs it by default
# (STRATA_BENCH unset; the binary is built here by the compile task with bun); then checks that the shard schedules are disjoint and make up the unsharded
# schedule, that the merged counts and distributions equal those of the union of the shards' rows, and that a missing
# shard makes the merge fail. Every process it starts (munged, slurmctld, slurmd, the engines) is stopped by its PID.
# Ends with "N passed, N failed". Needs root.
set -uo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
DENO=$REPO/node_modules/.bin/deno
passed=0
failed=0
count() { if [ "$1" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi; }
tally() { # adds the ok/FAILED lines of a _check.ts run
  passed=$((passed + $(grep -c '^ok:' "$1" || true)))
  failed=$((failed + $(grep -c '^FAILED:' "$1" || true)))
}

if [ "$(id -u)" -ne 0 ]; then
  echo "the Slurm tier needs root (munged and slurmd run as root here); skipped"
  echo "0 passed, 1 failed"
  exit 1
fi
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "installing slurm-wlm and munge (Debian)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null
fi

WORK=$(mktemp -d)
ENGINE_PIDS=()
source tests/slurm/_cluster.sh
stop_all() {
  local pid
  for pid in "${ENGINE_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${ENGINE_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  ENGINE_PIDS=()
  cluster_stop
  rm -rf "$WORK"
}
trap stop_all EXIT

t0=$(date +%s)
if cluster_start "$WORK/cluster" >"$WORK/cluster.log" 2>&1; then
  echo "ok: a one-node Slurm cluster is up ($(sinfo -h -o '%n %c CPUs %t') after $(($(date +%s) - t0)) s)"
  passed=$((passed + 1))
else
  echo "FAILED: the local Slurm cluster did not come up"
  cat "$WORK/cluster.log"
  echo "0 passed, 1 failed"
  exit 1
fi

# Four scripted engines on free loopback ports, each a different speed so that the shards differ.
urls=()
for i in 0 1 2 3; do
  "$DENO" run -q -P=mock --no-prompt mod.ts mock --port 0 --slots 16 --decode-tps $((1500 + 500 * i)) --no-bundle \
    >"$WORK/engine-$i.out" 2>&1 &
  ENGINE_PIDS+=("$!")
done
for i in 0 1 2 3; do
  for _ in $(seq 100); do
    url=$(head -n 1 "$WORK/engine-$i.out" 2>/dev/null)
    [[ $url == http://* ]] && break
    sleep 0.1
  done
  urls+=("$url")
done
echo "engines: ${urls[*]}"

LOAD_ARGS=(--rate 40 --requests 160 --arrival poisson --seed 11 --synthetic chat-short
  --warmup-requests 4 --no-headroom-check)
RESULTS=$WORK/results
mkdir -p "$RESULTS"
BENCH="$DENO run -q -P=load --allow-write=$RESULTS --no-prompt $REPO/mod.ts"
# The release binary, as the launcher finds it by default: `strata-bench` on PATH.
mkdir -p "$WORK/bin"
if "$DENO" run -q -P=compile --allow-write="$WORK/dist" --no-prompt release/compile.ts --with bun --target host \
  --out "$WORK/dist" >"$WORK/compile.log" 2>&1 &&
  cp "$WORK"/dist/strata-bench-*-bun "$WORK/bin/strata-bench"; then
  echo "ok: the release binary is built ($(du -h "$WORK/bin/strata-bench" | cut -f1))"
  passed=$((passed + 1))
else
  echo "FAILED: the release binary did not build"
  tail -n 20 "$WORK/compile.log"
  failed=$((failed + 1))
fi
export PATH="$WORK/bin:$PATH"

# The schedules: unsharded, and each shard's, from --plan (no traffic).
start_plan=$(($(date +%s) * 1000 + 3600 * 1000))
$BENCH load --plan --print-schedule --url "${urls[0]}" "${LOAD_ARGS[@]}" >"$WORK/whole.jsonl"
for i in 0 1 2 3; do
  $BENCH load --plan --print-schedule --url "${urls[$i]}" --shard "$i/4" --start-at "$start_plan" "${LOAD_ARGS[@]}" \
    >"$WORK/plan-$i.jsonl"
done
"$DENO" run -q --allow-read tests/slurm/_check.ts schedule "$WORK/whole.jsonl" "$WORK"/plan-{0,1,2,3}.jsonl \
  | tee "$WORK/check-schedule.log"
tally "$WORK/check-schedule.log"

# The launcher itself, through sbatch on the real cluster: 4 tasks on this one node (--overcommit), one shard each,
# each the release binary (STRATA_BENCH unset: the launcher's default, strata-bench on PATH).
unset STRATA_BENCH
export PATH RESULTS ENGINE_URL_BY_TASK="${urls[*]}" START_DELAY_S=8
sbatch --wait --nodes=1 --ntasks=4 --ntasks-per-node=4 --overcommit --output="$WORK/job.out" \
  launchers/slurm/strata-load.sbatch "${LOAD_ARGS[@]}" >"$WORK/sbatch.out" 2>&1
rc=$?
cat "$WORK/job.out" 2>/dev/null | tail -n 40
# Each shard and the merge wrote a new file into $RESULTS, named by the command (it prints the names).
merged=$(ls "$RESULTS"/*-merge-*.json 2>/dev/null | head -n 1)
shard_files=()
for i in 0 1 2 3; do shard_files+=("$(ls "$RESULTS"/*-load-*-shard-"$i"-of-4.jsonl 2>/dev/null | head -n 1)"); done
if [ "$rc" -eq 0 ] && [ -n "$merged" ]; then
  echo "ok: sbatch ran the launcher with the release binary: 4 srun tasks wrote $(ls "$RESULTS"/*-shard-*.jsonl | wc -l) shard files and the merge"
  passed=$((passed + 1))
else
  echo "FAILED: the launcher's job (sbatch exit $rc)"
  cat "$WORK/sbatch.out"
  failed=$((failed + 1))
fi
if [ -n "$merged" ]; then
  from=$(grep -ho '"from":"[^"]*"' "${shard_files[@]}" | sort -u)
  if [ "$from" = '"from":"SLURM_PROCID/SLURM_NTASKS"' ]; then
    echo "ok: every shard took its index and count from SLURM_PROCID/SLURM_NTASKS"
    passed=$((passed + 1))
  else
    echo "FAILED: shard indices came from $from"
    failed=$((failed + 1))
  fi
  "$DENO" run -q --allow-read tests/slurm/_check.ts merged "$merged" "${shard_files[@]}" \
    | tee "$WORK/check-merged.log"
  tally "$WORK/check-merged.log"
  $BENCH load merge "${shard_files[@]:0:3}" >"$WORK/missing.out" 2>&1
  rc=$?
  if [ "$rc" -eq 2 ] && grep -q "shard 3 of 4 missing" "$WORK/missing.out"; then
    echo "ok: merging without shard 3 fails (exit 2: $(grep -o 'shard 3 of 4 missing[^:]*' "$WORK/missing.out"))"
    passed=$((passed + 1))
  else
    echo "FAILED: merging without shard 3 exited $rc"
    cat "$WORK/missing.out"
    failed=$((failed + 1))
  fi
fi

# The binary alone with load's and compare's default workload (the real-text corpus it carries).
mkdir -p "$RESULTS/defaults"
strata-bench load --url "${urls[0]}" --concurrency 2 --requests 8 --no-headroom-check --quiet \
  --out "$RESULTS/defaults" >"$WORK/bin-load.out" 2>&1
rc_load=$?
strata-bench compare --baseline "${urls[0]}" --candidate "${urls[1]}" --concurrency 1 --requests 4 --rounds 2 \
  --quiet --out "$RESULTS/defaults" >"$WORK/bin-compare.out" 2>&1
rc_compare=$?
if [ "$rc_load" -eq 0 ] && grep -q "real text (sotu-v1" "$WORK/bin-load.out" && [ "$rc_compare" -le 1 ]; then
  echo "ok: the release binary runs load (exit 0, real text) and compare (exit $rc_compare, a verdict) with their defaults"
  passed=$((passed + 1))
else
  echo "FAILED: the release binary with default workloads: load exit $rc_load, compare exit $rc_compare"
  tail -n 5 "$WORK/bin-load.out" "$WORK/bin-compare.out"
  failed=$((failed + 1))
fi

stop_all
trap - EXIT
left=$( (pgrep -x munged; pgrep -x slurmctld; pgrep -x slurmd) | wc -l)
if [ "$left" -eq 0 ]; then
  echo "ok: every daemon this tier started has stopped"
  passed=$((passed + 1))
else
  echo "FAILED: $left Slurm or munge daemons still run"
  failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
