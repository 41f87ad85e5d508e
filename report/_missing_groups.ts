/**
 * What a person can do about a value a result lacks, read from its reason: pass a flag ("not given"), nothing on
 * this machine or engine ("not measurable here"), or look at a request that failed or was skipped ("failed").
 * The result README, the PR text and the command's last screen group the same way.
 */

/** The three groups, in the order they are shown. */
export const MISSING_GROUPS = ["not given", "not measurable here", "failed"] as const;
export type MissingGroup = typeof MISSING_GROUPS[number];

/** Values a person declares, by JSON Pointer, with the flag that declares them (for reasons that name no flag). */
const DECLARED_FLAGS: Readonly<Record<string, string>> = {
  "/model/id": "--model-id",
  "/model/revision": "--model-revision",
  "/model/source_revision": "--source-revision",
  "/model/tokenizer_revision": "--tokenizer-revision",
  "/model/quantization": "--quantization",
  "/model/custom_pack": "--custom-pack",
  "/software/build_options": "--build-options",
  "/software/strata_commit": "--engine-commit",
};

/** The flag a reason names ("... (pass --quantization)"), else the flag that declares `pointer`, else null. */
export function flagFor(reason: string, pointer: string | null): string | null {
  return /--[a-z][a-z0-9-]*/.exec(reason)?.[0] ?? (pointer === null ? null : DECLARED_FLAGS[pointer] ?? null);
}

/** Which group a missing value's reason puts it in. */
export function missingGroup(reason: string, pointer: string | null): MissingGroup {
  if (/^request was skipped|request failed|^failed\b|^skipped\b/i.test(reason)) return "failed";
  if (/^not (given|selected)\b|\bnot declared\b|\bpass\b|--[a-z]/.test(reason)) return "not given";
  if (pointer !== null && Object.hasOwn(DECLARED_FLAGS, pointer) && /^no .* declared/.test(reason)) {
    return "not given";
  }
  return "not measurable here";
}

/**
 * The line's label: "not given (pass --quantization)", "not measurable here (no GPU tool answered)",
 * "failed (the request failed (http_error))".
 */
export function missingLabel(reason: string, pointer: string | null): string {
  const group = missingGroup(reason, pointer);
  const flag = flagFor(reason, pointer);
  if (group === "not given" && flag !== null) return `not given (pass ${flag})`;
  const why = reason.replace(/^not (given|measured)\s*:?\s*/i, "");
  return `${group} (${why === "" ? reason : why})`;
}
