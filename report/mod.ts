/**
 * report/: what a reader gets from a run: the strict validator of results.json and its evidence, result assembly,
 * the result folder, sanitizing, and the README / console renderers.
 */
export {
  MAX_KEPT_PROBLEMS,
  MAX_RESULT_VALUES,
  parseResultText,
  validateResult,
  validateResultCounted,
  validateResultText,
  validateResultTextCounted,
} from "./validate.ts";
export type { ArtifactReader, Problem, ValidateOptions, ValidationReport } from "./validate.ts";
export {
  artifactReaderOf,
  capOf,
  type FolderFiles,
  type InterruptedEvidence,
  interruptedEvidence,
  RESULT_FILE_CAPS,
} from "./result_reader.ts";
export { markdownLine, markdownText } from "./_markdown.ts";
export { renderConsoleSummary, renderReadme, terminalText } from "./render.ts";
export {
  type DerivedText,
  describeRederived,
  type ReadmeOutcome,
  type Rehashed,
  SEALABLE_KINDS,
  type SealDeps,
  type SealOutcome,
  sealResult,
} from "./seal.ts";
export { prBody, prTitle, type ReadmeState, readmeState, type SubmissionFacts } from "./submission.ts";
export { chartRenderer, type ChartSpec, renderChartSvg, VEGA_LITE_SCHEMA } from "./charts.ts";
export {
  COMPARED_METRICS,
  type ComparedConfiguration,
  type ComparedInput,
  type ComparedRun,
  compareResults,
  type Comparison,
  type ComparisonGroup,
  type ComparisonRow,
  type FactValue,
} from "./comparison.ts";
export {
  COMPARISON_FORMAT,
  COMPARISON_SCHEMA_VERSION,
  csvCell,
  renderComparisonCsv,
  renderComparisonJson,
  renderComparisonMarkdown,
} from "./comparison_render.ts";
export { comparisonSpec } from "./comparison_picture.ts";
export { type CurvePercentiles, type CurvePoint, latencyCurveSpec } from "./curve_picture.ts";
export { type Picture, PICTURE_FILES, PICTURES_RENDERER_KEY, pictureSpecs, renderResultPictures } from "./pictures.ts";
export { picturesNote } from "./_checks_pictures.ts";
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
export { type PublishedRequest, publishRequest, RECORD_OVERRIDES_WHY, sanitizeResult } from "./publish.ts";
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
