/** The help text of `load` (and of `load merge`, after it). */
import { DEFAULT_DRAIN_S, PREFLIGHT_DEADLINE_S, WARMUP_LIMIT_S } from "../load/mod.ts";
import { MERGE_HELP } from "./_load_merge.ts";
import { TTFT_WINDOW } from "./_load_progress.ts";
import { SHARD_HELP } from "./_shard_args.ts";
import { WORKLOAD_HELP } from "./_workload_args.ts";
import { EXIT } from "./exit_codes.ts";

export const HELP =
  `Usage: strata-bench load (--url URL [--url URL ...] | --profile NAME|FILE) (--concurrency N | --rate R)
                         (--requests N | --duration S) [options]
       strata-bench load --self-check [--concurrency N] [--requests N]
       strata-bench load --plan [--print-schedule] ...   (shows the plan; sends nothing)
       strata-bench load merge FILE... [--out DIR]

Load-tests OpenAI-compatible streaming chat servers on this machine (loopback only: 127.0.0.0/8, ::1, localhost;
other hosts are refused). Before anything is measured, each URL must answer one small streamed chat request (exit
${EXIT.environment} with the status and content type it got otherwise) and --out must be writable. Several --url values share
the load round-robin; each gets its own summary plus a pooled_mixture. Warm-up requests run and complete first;
measurement starts right after them. The JSONL goes into a new file in --out whose name is printed.

Start here (every flag is described below):
  --url URL                 the server to load (repeatable)
  --concurrency N           closed loop: N requests outstanding; or --rate R: R arrivals/s (open loop); a list
                            such as 1,4,16 is a sweep
  --duration S              measure S seconds; or --requests N
  --workload NAME           real text of a named size (default chat-short)
  --html                    also write a page of pictures beside the JSONL
  --out DIR                 where the files go (default bench-results)

Examples:
  strata-bench load --url http://127.0.0.1:8080 --concurrency 8 --duration 60
  strata-bench load --url http://127.0.0.1:8080 --rate 4 --max-concurrency 32 --requests 200 --workload rag-medium --html
  strata-bench load --url http://127.0.0.1:8080 --concurrency 1,4,16 --duration 30 --html

Target:
  --url URL                 a running server (repeatable)
  --profile NAME|FILE       or: start the engine a JSONC profile describes (profiles/NAME.jsonc or a path), load
                            it, and stop it at the end (a server already on its port is used and left running;
                            strata-bench load grants the permission to run it)

Load:
  --concurrency N           closed loop: N requests outstanding at all times
  --rate R                  open loop: R arrivals/s on an absolute schedule from --seed
  --concurrency 1,4,16      a sweep (or --rate 1,2,4; at most 8 points): one measured run per point, each with its
                            own warm-up, in increasing order, into one JSONL; --html draws output tok/s against
                            TTFT and TPOT percentiles across the points; no cross-run aggregate
  --arrival poisson|constant  open-loop arrival process (default poisson)
  --max-concurrency N       open loop: cap on outstanding requests (default: none, an internal limit of 4096); an
                            arrival at the cap is sent late (lateness recorded; coordinated-omission latency
                            includes it) or dropped, see below
  --drop-late-after-ms MS   open loop: drop an arrival instead of sending it more than MS late (default: never)
  --late-after-ms MS        open loop: lateness above which a request counts as late (default 2)
  --requests N              measured requests (at most 100000)
  --duration S              measured issuance for S seconds (at most 3600), then the drain limit
  --drain-s S               in-flight requests still running S seconds after issuance stops are cancelled and
                            recorded as failed, "cancelled by the drain limit" (default ${DEFAULT_DRAIN_S} with --duration;
                            without --duration: none, each request's own --request-timeout bounds it)
  --warmup-requests N       default: the concurrency (closed), --max-concurrency (open), else the rate's one
                            second (4 to 256); an open loop's warm-up keeps at most 256 (and its one second of
                            the rate) in flight; 0 only for scripted/dummy servers (a warning says so)
  --warmup-s S              warm up by time instead: S seconds of warm-up issuance
  --warmup-limit-s S        a warm-up still running S s past its plan (by count: from its start; by time: after
                            --warmup-s) is cancelled and the test fails, exit ${EXIT.environment} (default ${WARMUP_LIMIT_S}); with the
                            preflight's ${PREFLIGHT_DEADLINE_S} s, --duration and --drain-s every phase is bounded
  --repeat K                K independent runs (default 1); adds a cross-run aggregate with seeded bootstrap 95%
                            intervals

${WORKLOAD_HELP}

Targets, SLOs and audits:
  --isl-target N, --isl-tolerance F (default 0.1), --isl-stat mean|median (default mean)
  --osl-target N, --osl-tolerance F (default 0.1), --osl-stat mean|median (default mean)
                            a target no run of the workload can meet is refused before any traffic
  --fail-on-osl-mismatch    exit ${EXIT.resultNotOk} when any measured request's output length is outside tolerance
  --slo-ttft-ms MS, --slo-tpot-ms MS, --slo-e2e-ms MS   goodput counts answered successes meeting all of them
                            (default: none, no goodput)
  --fail-on-slo F           exit ${EXIT.resultNotOk} when fewer than F (0-1, e.g. 0.95) of the measured requests met every
                            SLO (a gate, as k6 thresholds; needs an --slo-* flag)
  --allow-missing-ttft      the TTFT audit accepts successes without a TTFT (it fails the run otherwise)
  --infer-ttft-from-first-byte  with --no-stream: TTFT is the HTTP response headers (labelled so), not a token
  --timings-per-token       ask llama.cpp servers for running timings on every chunk: reasoning and answer TPOT
                            then count the engine's tokens per chunk (tokens_from "engine" in each row), not one a
                            chunk; off by default, as every chunk grows by about 250 bytes the server writes and the
                            client parses (a warning names any --url that is not llama.cpp)
  --strict                  reject reasoning-truncated answers (only reasoning until the cap): the run fails
  --ci-safety               --strict, plus every measured request must succeed and the warm-up must not be zero
  --bin-s S                 throughput bin width (default 1); doubled until the run fits 65,536 bins, and each
                            summary's bin_width_s says the width used

Client headroom:
  --no-headroom-check       skip measuring the client's own ceiling for this run's shape (cached per machine and
                            toolkit commit; otherwise measured for --headroom-s seconds before the load)
  --headroom-s S            length of that check (default 2)

Output:
  --out DIR                 folder for the new files (default bench-results): <UTC-date>-load-<run-id>.jsonl with
                            the config line, every request row as it ends, each run's summary (and the aggregate)
  --html                    also write <same name>.html: one self-contained page (opens offline) with latency
                            CDFs (E2E, TTFT, TPOT, ITL, coordinated-omission), throughput and requests in flight
  --prompt-mix-report       also write <same name>.prompt-mix.json (provenance, targets, achieved ISL/OSL)
  --plan                    print the plan (workload, pins, schedule hash, defaults) and send nothing
  --print-schedule          with --plan: every request this generator would issue, one JSON line each
  --quiet                   no progress on stderr (warnings and errors still)

Progress: on a terminal one status line redrawn in place (phase, elapsed of the plan, sent / ok / failed / in
flight, requests/s and output tokens/s so far, TTFT p50 of the latest ${TTFT_WINDOW} successes); on a pipe or file, that
line every 10 s. Ctrl-C or SIGTERM stops issuing, cancels what is in flight (status cancelled, not failed), keeps
every row that ended, marks the JSONL and the console "interrupted" and exits ${EXIT.interrupted}.

${SHARD_HELP}

Self-check:
  --self-check              start the scripted engine in-process with zero service time and load it
                            (default --concurrency 64 --requests 2000): the client's own ceiling

Common:
  -h, --help                this text
  --version                 the toolkit's version and commit

Exit codes:
  ${EXIT.ok}  the run completed
  ${EXIT.resultNotOk}  ran, but every request failed, an audit failed (TTFT, --strict, --ci-safety), or
     --fail-on-osl-mismatch found a mismatch
  ${EXIT.usage}  usage error (unknown flag, bad value, a flag with no effect in the combination, non-loopback URL,
     unbounded load, repeated prompt, pin mismatch, a target that cannot be met, a start time in the past)
  ${EXIT.environment}  environment failure (a URL that does not answer as a streaming chat server, a file unreadable,
     --out not writable, an engine that does not start, a warm-up past --warmup-limit-s): nothing was measured
  ${EXIT.interrupted}  interrupted by a signal: what ended before it is kept, marked interrupted

${MERGE_HELP}`;
