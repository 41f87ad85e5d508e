/** `compare`'s help text: what it does, its flags, and its exit codes. */
import { PREFLIGHT_DEADLINE_S, SPEC_DEFAULTS, WARMUP_LIMIT_S } from "../load/mod.ts";
import { EXIT } from "./exit_codes.ts";

export const HELP = `Usage: strata-bench compare (--baseline URL | --baseline-profile NAME|FILE)
                             (--candidate URL | --candidate-profile NAME|FILE) [--spec SPEC.jsonc | options]
       strata-bench compare --plan SPEC.jsonc [sides]      (prints every run it would make; sends nothing)
       strata-bench compare --from BASELINE.jsonl CANDIDATE.jsonl | --from COMPARE.jsonl [--tolerance F]
                            (gates saved results offline: two load results, or a compare result's two sides)

Gates a candidate server against a baseline on this machine (loopback only). Each side is a running server's URL
or an engine profile (a name under profiles/ or a .jsonc path) started here; the two may be mixed. Before anything
is measured, each server must answer one small streamed chat request (exit ${EXIT.environment} with the status and content type
it got otherwise) and --out must be writable. Every measurement is a warm-up, then measured issuance.
"Interleaved" means:
  two URLs      at each concurrency point the sides alternate round by round, the first side alternating per
                round (B C, C B, ...)
  any profile   the engines run in turn, never together (two may not fit one GPU): each round starts the
                baseline, measures every point, stops it, then does the same for the candidate; rounds repeat
                (B, C, B, C, ...) so drift touches both sides alike. A profile whose port already answers is used
                as it is and left running; every engine started here is stopped, also on error or Ctrl-C.
The gate holds when the candidate's output tokens/s and TPOT p50 are within --tolerance of the baseline's at every
point, or within the point's recorded noise floor when that is wider: the baseline's own round-to-round noise,
measured in this run and recorded in the JSONL, or a floor recorded by an earlier run (--noise-floor-from) or
given (--noise-floor). The candidate's own spread never widens its tolerance. The candidate's error rate may not
exceed the baseline's by more than --max-error-rate-increase. A point without a value fails. TTFT is reported,
not gated.

Spec file (the methodology's versioned harness; JSONC, unknown keys refused; see docs/load.md):
  --spec FILE               workloads W1/W2 pinned by SHA-256, points (default 1,8,32), request parameters,
                            durations (default ${SPEC_DEFAULTS.warmupS} s warm-up, ${SPEC_DEFAULTS.measureS} s measured issuance, ${SPEC_DEFAULTS.drainS} s drain limit per
                            point), rounds, gate settings and the serving stack's identity; the flags below that
                            choose the workload, points, rounds or durations are refused with it
  --plan SPEC               print every run the spec would make, in order, with its bound in seconds; no traffic

Sides:
  --baseline URL            the reference server, already running
  --baseline-profile NAME|FILE   or: start the reference from an engine profile for each of its turns
  --candidate URL           the server under test, already running
  --candidate-profile NAME|FILE  or: start the server under test from an engine profile for each of its turns

Measurement:
  --concurrency LIST        closed-loop points, comma-separated (default 1,8,32)
  --rounds R                measured rounds per side and point (default 2; >= 2 gives intervals and a noise floor)
  --requests N              measured requests per round and side (default: 4 x the point's concurrency, >= 8)
  --duration S              instead of --requests: seconds of measured issuance per round and side
  --drain-s S               with --duration: in-flight requests are cancelled S s after it (default ${SPEC_DEFAULTS.drainS})
  --warmup-requests N       warm-up requests before each measured round (default: the point's concurrency)
  --warmup-s S              or: seconds of warm-up issuance before each measured round
  --warmup-limit-s S        a warm-up still running S s past its plan fails the comparison, exit ${EXIT.environment}
                            (default ${WARMUP_LIMIT_S}; the preflight waits at most ${PREFLIGHT_DEADLINE_S} s)
  --tolerance F             gate tolerance as a fraction (default ${SPEC_DEFAULTS.tolerance})
  --max-error-rate-increase F  most the candidate's error rate may exceed the baseline's (default ${SPEC_DEFAULTS.maxErrorRateIncrease})
  --noise-floor LIST        noise floors to apply, e.g. 1=0.03,8=0.04 (fraction per concurrency point; default:
                            none beyond the one this run measures)
  --noise-floor-from FILE   reuse the noise floor an earlier compare recorded in its JSONL

Workload without a spec (same bytes for both sides; labelled W1; default --workload chat-short):
  --workload NAME | --synthetic NAME | --prompts FILE.jsonl | --sharegpt FILE.json, --workload-sha256 HEX,
  --sample N, --seed N, --max-tokens N, --min-tokens N, --ignore-eos, --temperature T, --request-seed N,
  --no-stream, --model NAME, --allow-repeated-prompt, --request-timeout S   (defaults as in load --help)

Output:
  --out DIR                 folder for the new files (default bench-results): <UTC-date>-compare-<run-id>.jsonl
                            with the config line, each turn's server (URL, or profile and sanitized engine
                            arguments), every round's summary, and the verdict, written as they happen
  --html                    also write <same name>.html: one self-contained page (opens offline) with each
                            point's baseline and candidate and the gate band
  --quiet                   no progress on stderr (warnings and errors still)

Progress: on a terminal one status line redrawn in place: the measurement i of n, point, round and side, then
load's figures (phase, sent / ok / failed / in flight, rates, TTFT p50); on a pipe or file, that line every 10 s.
Ctrl-C or SIGTERM stops at once: engines started here are stopped, the measurements that ended are kept in the
JSONL, no gate verdict is printed or written, and the exit code is ${EXIT.interrupted}.

Common:
  -h, --help                this text
  --version                 the toolkit's version and commit

Examples:
  strata-bench compare --baseline http://127.0.0.1:8080 --candidate http://127.0.0.1:8081 --concurrency 1,8
  strata-bench compare --baseline-profile tiny-qwen3 --candidate http://127.0.0.1:8081 --rounds 3 --html
  strata-bench compare --plan gate.jsonc

Exit codes:
  ${EXIT.ok}  the gate holds at every point
  ${EXIT.resultNotOk}  the gate fails (a metric outside tolerance, or a missing point)
  ${EXIT.usage}  usage error (unknown flag, bad value, a flag with no effect in the combination, non-loopback URL, a
     spec with an unknown key, a workload whose SHA-256 differs from its pin: all refused before any traffic)
  ${EXIT.environment}  environment failure (a side that does not answer as a streaming chat server, a file unreadable,
     --out not writable, an engine that does not start)
  ${EXIT.interrupted}  interrupted by a signal: no verdict; the measurements that ended are kept, marked interrupted

Starting a profile's engine needs permission to run its program: strata-bench compare grants it with a profile.
`;
