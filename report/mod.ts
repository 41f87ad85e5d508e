/**
 * report/: what a reader gets from a run: the strict validator of results.json and its evidence, result assembly,
 * the result folder, sanitizing, and the README / console renderers.
 */
export { validateResultText } from "./validate.ts";
export type { Problem } from "./validate.ts";
export { artifactReaderOf } from "./result_reader.ts";
export { markdownText } from "./_markdown.ts";
export { folderReadme, type ReadResult, readResultFolder, resentRequests, validationOptions } from "./read_result.ts";
export { sealFolder } from "./seal/folder.ts";
export { renderConsoleSummary, renderReadme } from "./render.ts";
export { describeRederived } from "./seal/seal.ts";
export { prBody, prTitle } from "./submission.ts";
export { type ChartSpec, renderChartSvg } from "./charts.ts";
export { resultGlance } from "./glance.ts";
export { missingGroup } from "./_missing_groups.ts";
export { type ComparedInput, compareResults, type Comparison } from "./comparison/comparison.ts";
export { csvCell, renderComparisonCsv, renderComparisonJson, renderComparisonMarkdown } from "./comparison/render.ts";
export { comparisonSpec } from "./comparison/picture.ts";
export { type CurvePoint, latencyCurveSpec } from "./curve_picture.ts";
export { PICTURES_RENDERER_KEY, renderResultPictures } from "./pictures.ts";
export { picturesNote } from "./checks/_pictures.ts";
export { DIGEST_KEYS, measuredDigest } from "./measured.ts";
export { assembleResult, type ScoredRequest } from "./assemble.ts";
export { publishRequest, sanitizeResult } from "./publish.ts";
export {
  chooseResultsRoot,
  gpuSlug,
  newRunId,
  openResultFolder,
  type ResultFolder,
  resultFolderName,
  type Sanitizers,
} from "./result_folder.ts";
/** The result folder's file names are the contract's (runner/ names them through report/). */
export { RESULT_FILES } from "../contract/mod.ts";
