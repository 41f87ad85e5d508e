/**
 * The pictures of a result, drawn again from results.json and compared with the folder's byte for byte. A picture
 * is drawn deterministically from the result (pictures.ts: the spec depends only on results.json, the renderer's
 * text widths are estimated), so one whose numbers were edited after the run, and re-hashed, differs from what
 * results.json gives. Bytes are compared only under the renderer the run recorded (`extensions.pictures_renderer`):
 * another vega version may draw the same spec with other bytes, and a genuine result is never rejected for it;
 * `picturesNote` says so instead.
 */
import { type Artifact, type Result } from "../../contract/mod.ts";
import { chartRenderer, renderChartSvg } from "../charts.ts";
import { PICTURE_FILES, PICTURES_RENDERER_KEY, pictureSpecs } from "../pictures.ts";
import { childPointer, type ProblemSink } from "../_pointer.ts";
import type { ArtifactReader } from "./_artifacts.ts";

const PICTURE_PATHS: ReadonlySet<string> = new Set(Object.values(PICTURE_FILES));

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Draws every picture results.json gives and compares it with the listed file (see the module comment). */
export async function checkPictures(
  result: Result,
  artifacts: readonly { index: number; artifact: Artifact }[],
  read: ArtifactReader,
  problems: ProblemSink,
): Promise<void> {
  const recorded = result.extensions?.[PICTURES_RENDERER_KEY];
  if (typeof recorded !== "string" || recorded !== await chartRenderer()) return;
  const at = `/extensions/${PICTURES_RENDERER_KEY}`;
  let specs: ReturnType<typeof pictureSpecs>;
  try {
    specs = pictureSpecs(result);
  } catch (error) {
    problems.push({ pointer: at, message: `the pictures cannot be drawn from results.json: ${String(error)}` });
    return;
  }
  const listed = artifacts.filter(({ artifact }) => PICTURE_PATHS.has(artifact.path));
  for (const { file, spec } of specs) {
    const entry = listed.find(({ artifact }) => artifact.path === file);
    if (entry === undefined) {
      problems.push({
        pointer: "/artifacts",
        message: `no "${file}": results.json gives this picture and the run that recorded its renderer drew it`,
      });
      continue;
    }
    const bytes = await read(file).catch(() => null);
    if (bytes === null) continue; // the hash check reported it
    const drawn = new TextEncoder().encode(await renderChartSvg(spec));
    if (!equalBytes(drawn, bytes)) {
      problems.push({
        pointer: childPointer(childPointer("/artifacts", entry.index), "path"),
        message: `"${file}" is not the picture results.json gives: drawn again from results.json by ${recorded} ` +
          "(the renderer the run used) its bytes differ, so the picture was changed after the run; restore it",
      });
    }
  }
  for (const { index, artifact } of listed) {
    if (!specs.some((s) => s.file === artifact.path)) {
      problems.push({
        pointer: childPointer(childPointer("/artifacts", index), "path"),
        message: `"${artifact.path}" is listed as a picture, but results.json gives no such picture`,
      });
    }
  }
}

/**
 * Information for a reader when the pictures were not compared (a result that records no renderer, or another
 * one); null when they were, or when the result has none.
 */
export async function picturesNote(result: Result): Promise<string | null> {
  const pictures = result.artifacts.filter((a) => PICTURE_PATHS.has(a.path)).map((a) => a.path);
  if (pictures.length === 0) return null;
  const recorded = result.extensions?.[PICTURES_RENDERER_KEY];
  const ours = await chartRenderer();
  if (recorded === ours) return null;
  const drawnBy = typeof recorded === "string" ? `were drawn by ${recorded}` : "record no renderer (an older run)";
  return `The pictures (${pictures.join(", ")}) ${drawnBy}; this strata-bench draws with ${ours}, so their bytes ` +
    "were not compared with what results.json gives: read them as the runner's drawings, and the numbers in " +
    "results.json as what counts.";
}
