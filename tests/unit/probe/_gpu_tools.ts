/**
 * Scripted stand-ins for nvidia-smi and amd-smi, placed on PATH by the tests: small POSIX shell scripts that print
 * what the tools' documented formats print (nvidia-smi --query-gpu ... --format=csv,noheader,nounits; nvidia-smi
 * --query-compute-apps; amd-smi metric --power --clock --json), with a mode that scripts the failure cases: exit
 * non-zero, "[N/A]", "[Not Supported]", garbage, a hang. Each call's number is counted in a file, so a mode can
 * change over time (throttling from the third call on).
 */
import { join } from "node:path";

export type ToolMode = "normal" | "two-gpus" | "na" | "not-supported" | "garbage" | "fail" | "throttle-later";

const NVIDIA = String.raw`#!/bin/sh
dir=$(dirname "$0")
n=$(cat "$dir/calls" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$dir/calls"
mode=$(cat "$dir/mode")
case "$1" in
  --query-compute-apps=*)
    echo "4242, /usr/bin/python3 train.py, 1024"
    echo "999, /opt/llama/llama-server, 8000"
    exit 0 ;;
  --query-gpu=timestamp,index,power.draw*) ;;
  *) echo "unsupported query" >&2; exit 2 ;;
esac
case "$mode" in
  fail) echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2; exit 9 ;;
  garbage) printf '\001\002 garbage, more\nnot,a,csv\n' ;;
  na) echo "2026/12/01 20:00:00.000, 0, [N/A], [N/A], [N/A], [N/A]" ;;
  not-supported) echo "2026/12/01 20:00:00.000, 0, [Not Supported], 1980, 9501, [Not Supported]" ;;
  two-gpus)
    echo "2026/12/01 20:00:00.000, 0, 200.00, 2400, 10501, 0x0000000000000000"
    echo "2026/12/01 20:00:00.000, 1, 100.00, 2100, 10501, 0x0000000000000001" ;;
  throttle-later)
    if [ "$n" -ge 3 ]; then r=0x0000000000000024; else r=0x0000000000000000; fi
    echo "2026/12/01 20:00:00.000, 0, 300.00, 1800, 10501, $r" ;;
  *) echo "2026/12/01 20:00:00.000, 0, 250.00, 2520, 10501, 0x0000000000000000" ;;
esac
`;

const AMD = String.raw`#!/bin/sh
dir=$(dirname "$0")
mode=$(cat "$dir/mode")
[ "$1 $2 $3 $4" = "metric --power --clock --json" ] || { echo "bad arguments" >&2; exit 2; }
case "$mode" in
  fail) echo "amd-smi: no AMD GPU" >&2; exit 1 ;;
  garbage) echo "{not json" ;;
  na) echo '[{"gpu": 0, "power": {"socket_power": "N/A"}, "clock": {"gfx_0": {"clk": "N/A"}}}]' ;;
  *) echo '[{"gpu": 0, "power": {"socket_power": {"value": 150, "unit": "W"}}, "clock": {"gfx_0": {"clk": {"value": 2100, "unit": "MHz"}}, "mem_0": {"clk": {"value": 1250, "unit": "MHz"}}}}]' ;;
esac
`;

/** Writes the stand-ins (only the tools named) into `dir` with a mode; returns the PATH to use. */
export async function installGpuTools(
  dir: string,
  tools: readonly ("nvidia-smi" | "amd-smi")[],
  mode: ToolMode,
): Promise<string> {
  await Deno.writeTextFile(join(dir, "mode"), mode);
  for (const tool of tools) {
    const path = join(dir, tool);
    await Deno.writeTextFile(path, tool === "nvidia-smi" ? NVIDIA : AMD);
    await Deno.chmod(path, 0o755);
  }
  // The tools' folder only, plus /bin for the shell's own programs (cat, dirname).
  return `${dir}:/usr/bin:/bin`;
}

/** Runs `body` with PATH set to the stand-ins' folder, restoring it after. */
export async function withPath<T>(path: string, body: () => Promise<T>): Promise<T> {
  const old = Deno.env.get("PATH");
  Deno.env.set("PATH", path);
  try {
    return await body();
  } finally {
    if (old === undefined) Deno.env.delete("PATH");
    else Deno.env.set("PATH", old);
  }
}
