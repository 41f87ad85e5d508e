/**
 * Pictures as SVG text, drawn from Vega-Lite specs by the vega and vega-lite packages without a browser, a DOM or
 * a canvas (vega's headless SVG renderer; text widths are estimated, so the output depends only on the spec). The
 * same spec can be drawn again by any Vega-Lite viewer. The packages load on first use, so commands that draw
 * nothing never pay for them.
 *
 * Every picture gets the same look: white background (readable in dark mode too), sans-serif text, no actions,
 * no scripts, no external references; GitHub shows such an SVG as an image.
 */
import type { TopLevelSpec } from "vega-lite";

/** A Vega-Lite specification (the `$schema` and the shared look are added here). */
export type ChartSpec = TopLevelSpec;

/** Vega-Lite schema the specs are written for (vega-lite 6). */
export const VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";

const LOOK = {
  background: "white",
  padding: 12,
  config: {
    font: "sans-serif",
    view: { stroke: "#ddd" },
    title: { fontSize: 14, anchor: "start", subtitleColor: "#555" },
    axis: { labelFontSize: 11, titleFontSize: 12, gridColor: "#eee" },
    legend: { labelFontSize: 11, titleFontSize: 12 },
  },
} as const;

/**
 * The x scale of a range chart: fitted to the values (not from zero) so that their spread fills the frame; from zero
 * where every value is the same, since a zero-width domain would label its only tick "1,500.000000".
 */
export function spreadScale(values: readonly (number | null)[]): { zero: boolean; nice: boolean } {
  const known = values.filter((v): v is number => v !== null);
  return { zero: known.length === 0 || known.every((v) => v === known[0]), nice: true };
}

/** The spec with the schema and the shared look (explicit settings of `spec` win). */
export function withLook(spec: ChartSpec): ChartSpec {
  const config = { ...LOOK.config, ...((spec as { config?: object }).config ?? {}) };
  return {
    $schema: VEGA_LITE_SCHEMA,
    background: LOOK.background,
    padding: LOOK.padding,
    ...spec,
    config,
  } as ChartSpec;
}

/**
 * Version of the result pictures' specs (pictures.ts): raised whenever a spec changes, so that a picture drawn by an
 * older spec is not compared byte for byte with a newer one (2: the numbers moved into the row labels).
 */
export const PICTURE_SPEC_VERSION = 2;

/**
 * The renderer's name and versions ("vega 6.4.0, vega-lite 6.5.0, pictures 2"): the same spec gives the same bytes
 * under the same versions, so a result records it and a picture is compared byte for byte only under the same one.
 */
export async function chartRenderer(): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import("vega"), import("vega-lite")]);
  return `vega ${vega.version}, vega-lite ${vegaLite.version}, pictures ${PICTURE_SPEC_VERSION}`;
}

/**
 * Draws a Vega-Lite spec as one SVG document (UTF-8 text ending in a newline).
 * @throws {Error} when the spec does not compile or render (a defect of the caller's spec).
 */
export async function renderChartSvg(spec: ChartSpec): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import("vega"), import("vega-lite")]);
  const compiled = vegaLite.compile(withLook(spec)).spec;
  // renderer "none": no canvas or DOM is looked for; toSVG builds the markup from the scenegraph.
  const view = new vega.View(vega.parse(compiled), { renderer: "none", logLevel: vega.Error });
  try {
    const svg = await view.toSVG();
    return svg.endsWith("\n") ? svg : `${svg}\n`;
  } finally {
    view.finalize();
  }
}
