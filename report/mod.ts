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
export { renderConsoleSummary, renderReadme } from "./render.ts";
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
