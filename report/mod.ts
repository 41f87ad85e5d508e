/**
 * report/: what a reader gets from a run: the strict validator of results.json and its evidence, result assembly,
 * the result folder, sanitizing, and the README / console renderers.
 */
export { validateResult, validateResultText } from "./validate.ts";
export type { ArtifactReader, Problem, ValidateOptions } from "./validate.ts";
export { renderConsoleSummary, renderReadme } from "./render.ts";
