/**
 * The per-case energy table of a result whose run sampled GPU power (results.json extensions.gpu_power, written by
 * the runner from the probe's nvidia-smi or amd-smi samples): joules, tokens per joule, mean and peak watts, the
 * lowest SM clock and any throttle reason seen, per case; and the other processes found on the GPU. Values are shown
 * as stored; a run without samples gets one line saying why.
 */
import type { Result } from "../contract/mod.ts";
import type { Section } from "./_section.ts";

type Row = Record<string, unknown>;

const shown = (value: unknown, digits: number): string =>
  typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "n/a";

/** The energy section, or null when the result has no gpu_power record at all (older results). */
export function energySection(result: Result): Section | null {
  const power = result.extensions?.["gpu_power"] as Row | undefined;
  if (power === undefined || power === null || typeof power !== "object") return null;
  const cases = Array.isArray(power["cases"]) ? (power["cases"] as Row[]) : [];
  const background = Array.isArray(power["background_workloads"]) ? (power["background_workloads"] as Row[]) : [];
  const notes = background.map((p) =>
    `Background workload on the GPU: ${String(p["process_name"])} (pid ${String(p["pid"])}, ${
      shown(p["used_memory_mib"], 0)
    } MiB)`
  );
  if (cases.length === 0) {
    const reason = typeof power["reason"] === "string" ? power["reason"] : "no power samples were taken";
    return { title: "Energy", paragraphs: [`Not measured: ${reason}.`], notes };
  }
  const rows = cases.map((c) => [
    `${String(c["phase"])} ${String(c["case_id"])}`,
    String(c["requests"]),
    c["output_tokens"] === null ? "n/a" : String(c["output_tokens"]),
    shown(c["energy_j"], 1),
    shown(c["tokens_per_j"], 3),
    shown(c["mean_power_w"], 1),
    shown(c["peak_power_w"], 1),
    c["min_sm_clock_mhz"] === null || c["min_sm_clock_mhz"] === undefined ? "n/a" : String(c["min_sm_clock_mhz"]),
    Array.isArray(c["throttle_reasons"])
      ? ((c["throttle_reasons"] as unknown[]).join(", ") || "none")
      : String(c["reason"] ?? "n/a"),
  ]);
  return {
    title: "Energy",
    paragraphs: [
      `GPU power sampled by ${String(power["source"])} (${String(power["samples"])} samples, all GPUs summed); ` +
      "a case's energy is its requests' windows integrated (a concurrency round's window once).",
    ],
    table: {
      head: [
        "Case",
        "Requests",
        "Output tokens",
        "Energy (J)",
        "Tokens/J",
        "Mean W",
        "Peak W",
        "Min SM MHz",
        "Throttling",
      ],
      rows,
    },
    notes,
  };
}
