/**
 * report/: what a reader gets from a run: the strict validator of results.json and its evidence, result assembly,
 * the result folder, sanitizing, and the README / console renderers.
 */
export { validateResult, validateResultText } from "./validate.ts";
export type { ArtifactReader, Problem, ValidateOptions } from "./validate.ts";
export { renderConsoleSummary, renderReadme } from "./render.ts";
export { type ChartSpec, renderChartSvg, VEGA_LITE_SCHEMA } from "./charts.ts";
export { type Picture, PICTURE_FILES, pictureSpecs, renderResultPictures } from "./pictures.ts";
export {
  DIGEST_KEYS,
  MEASURED_DIGEST_METHOD,
  measuredChanges,
  type MeasuredDigest,
  measuredDigest,
  recordedDigest,
} from "./measured.ts";
export {
  ABSOLUTE_PATH_PLACEHOLDER,
  createSanitizer,
  machineSanitizer,
  sanitizeCommand,
  type SanitizeContext,
  sanitizeJson,
  type Sanitizer,
  sanitizeText,
} from "./sanitize.ts";
export {
  type AssembledResult,
  type AssembleInput,
  assembleResult,
  nullPointers,
  type ProvenanceSections,
  type ScoredRequest,
} from "./assemble.ts";
export {
  chooseResultsRoot,
  gpuSlug,
  newRunId,
  openResultFolder,
  outputLine,
  RESULT_FILES,
  type ResultFolder,
  resultFolderName,
  type Sanitizers,
} from "./result_folder.ts";
