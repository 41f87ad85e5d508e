/**
 * report/: the result contract (types, constants and the published JSON Schema `result.schema.json`), the strict
 * validator, and the README / console renderers. Assembly, sanitizing and result folders add their exports here.
 */
export * from "./contract.ts";
export { validateResult, validateResultText } from "./validate.ts";
export type { ArtifactReader, Problem, ValidateOptions } from "./validate.ts";
export { renderConsoleSummary, renderReadme } from "./render.ts";
