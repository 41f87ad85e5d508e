/**
 * The prompt-mix report (performance methodology, workload): what was sent (source, provenance and licence, the
 * set's and the selection's SHA-256, the seed, the profile and its version) and how the achieved sequence lengths,
 * as the server counted them over the measured successes, compare with the targets.
 */
import { LOAD_LINE_FORMATS } from "../contract/mod.ts";
import type { PreparedWorkload } from "./prepare.ts";
import type { EndpointLoadSummary, LengthTarget } from "./summary.ts";

export const PROMPT_MIX_FORMAT = LOAD_LINE_FORMATS.promptMix;

/** The report of one run's mix; its numbers are the summary's own (the same distribution objects). */
export function promptMixReport(
  workload: PreparedWorkload,
  overall: EndpointLoadSummary,
  targets: { isl: LengthTarget | null; osl: LengthTarget | null },
): Record<string, unknown> {
  const stamp = workload.stamp;
  const profile = workload.set.profile;
  return {
    format: PROMPT_MIX_FORMAT,
    version: 1,
    source: stamp.source,
    provenance: stamp.provenance,
    prompt_set_sha256: stamp.prompt_set_sha256,
    pinned_sha256: stamp.pinned_sha256,
    selection_sha256: stamp.selection_sha256,
    selected_prompts: stamp.selected_prompts,
    seed: stamp.seed,
    profile: profile === null ? null : { name: profile.name, version: profile.version },
    targets: {
      isl: targets.isl ?? (profile ? { target: profile.isl_target, tolerance: null, stat: null } : null),
      osl: targets.osl ?? (profile ? { target: profile.osl_target, tolerance: null, stat: null } : null),
    },
    recommended_max_tokens: profile?.osl_target ?? null,
    achieved: {
      input_tokens: overall.distributions.input_tokens,
      output_tokens: overall.distributions.output_tokens,
      source: "the server's usage/timings token counts of measured successes",
    },
    isl_check: overall.isl,
    osl_check: overall.osl,
  };
}
