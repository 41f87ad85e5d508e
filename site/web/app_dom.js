// @ts-check
/// <reference lib="dom" />
/**
 * Small DOM helpers for the site's pages. Every text from a result or the manifest goes in as a text node (never
 * as HTML), its controls shown, never obeyed, there and in the attributes a reader sees; links point only at the
 * site's own files or at https review pages the manifest contract accepted.
 */
import { visibleText } from "./visible.js";

/** Attributes a reader sees (a tooltip, a label read aloud): their text is set as visibleText shows it. */
const SHOWN_ATTRIBUTES = ["title", "aria-label", "alt", "placeholder"];

/** @param {Element} element @param {string} name @param {string} text */
function setAttribute(element, name, text) {
  element.setAttribute(name, SHOWN_ATTRIBUTES.includes(name) ? visibleText(text) : text);
}

/** A child: text, a node, nothing, or a (nested) list of children. @typedef {string | number | Node | null | undefined | false | readonly unknown[]} Child */

/**
 * Creates an element with attributes and children.
 * @param {string} tag
 * @param {Record<string, string | number | boolean | undefined | null>} [attributes]
 * @param {...Child} children
 * @returns {HTMLElement}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    setAttribute(element, name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Creates an SVG element.
 * @param {string} tag @param {Record<string, string | number>} [attributes] @param {...Child} children
 * @returns {SVGElement}
 */
export function s(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) setAttribute(element, name, String(value));
  append(element, children);
  return element;
}

/** @param {Element} parent @param {readonly unknown[]} children */
function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.append(child);
    else parent.append(document.createTextNode(visibleText(String(child))));
  }
}

/**
 * A number with `digits` decimals, or "not measured".
 * @param {number | null | undefined} value @param {number} [digits]
 */
export function num(value, digits = 1) {
  return value === null || value === undefined ? "not measured" : value.toFixed(digits);
}

/**
 * "median [min-max] n=3", or "not measured (n=0)".
 * @param {{ median: number | null, min: number | null, max: number | null, n: number } | undefined} stat
 * @param {number} digits
 */
function statText(stat, digits) {
  if (stat === undefined) return "not measured";
  if (stat.median === null) return `not measured (n=${stat.n})`;
  return `${num(stat.median, digits)} [${num(stat.min, digits)}-${num(stat.max, digits)}] n=${stat.n}`;
}

/**
 * A statistic for a table cell: the median first, the range and count after it in smaller type (the cell may wrap
 * between them; its text reads as statText's).
 * @param {{ median: number | null, min: number | null, max: number | null, n: number } | undefined | null} stat
 * @param {number} digits
 */
export function statCell(stat, digits) {
  if (stat === undefined || stat === null || stat.median === null) return statText(stat ?? undefined, digits);
  return [
    h("span", { class: "median" }, num(stat.median, digits)),
    " ",
    h("span", { class: "range" }, `[${num(stat.min, digits)}-${num(stat.max, digits)}] n=${stat.n}`),
  ];
}

/** @param {{ min: number, max: number } | null} range */
export function rangeText(range) {
  if (range === null) return "not measured";
  return range.min === range.max ? String(range.min) : `${range.min}-${range.max}`;
}

/** A label that cannot be missed. @param {string} text @param {string} kind */
export function badge(text, kind) {
  return h("span", { class: `badge badge-${kind}` }, text);
}

/** Replaces the page's main content. @param {...Child} children */
export function show(...children) {
  const main = /** @type {HTMLElement} */ (document.getElementById("main"));
  main.replaceChildren();
  append(main, children);
}
