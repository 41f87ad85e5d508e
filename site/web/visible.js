// @ts-check
/**
 * Text as a page shows it: bidirectional controls (embeddings, overrides, isolates, marks), zero-width and other
 * invisible format characters, and C0/C1 controls other than tab and newline are shown as "<U+202E>", never obeyed,
 * so a hostile model name or note cannot reorder or hide what a reader sees.
 */

// deno-lint-ignore no-control-regex -- these controls are what is shown instead of obeyed
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** @param {string} text @returns {string} */
export function visibleText(text) {
  return text.replace(HIDDEN, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`);
}
