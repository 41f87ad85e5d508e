// @ts-check
/**
 * Text as a page shows it: bidirectional controls (embeddings, overrides, isolates, marks), zero-width and other
 * invisible format characters, and C0/C1 controls other than tab and newline are shown as "<U+202E>", never obeyed,
 * so a hostile model name or note cannot reorder or hide what a reader sees. Look-alike letters are shown the same
 * way: in a word that mixes Latin letters with Cyrillic, Greek, Armenian or Cherokee ones (a Cyrillic "е" in
 * "Qwen"), each letter of those scripts, and fullwidth and mathematical forms of Latin letters and digits anywhere,
 * so a name posing as another reads differently from it. A page groups and filters by the exact text, never by what
 * it shows: a look-alike name is its own ranking, and is seen to be.
 */

// deno-lint-ignore no-control-regex -- these controls are what is shown instead of obeyed
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const LOOKALIKE = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}]/u;
const LATIN = /\p{Script=Latin}/u;
/** Fullwidth ASCII forms and mathematical alphanumeric symbols: Latin letters and digits in another dress. */
const DRESSED = /[\uff01-\uff5e\u{1d400}-\u{1d7ff}]/u;

/** @param {string} c one code point @returns {string} */
const code = (c) => `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}>`;

/** @param {string} word @returns {string} */
function marked(word) {
  const mixed = LATIN.test(word) && LOOKALIKE.test(word);
  if (!mixed && !DRESSED.test(word)) return word;
  return [...word].map((c) => (DRESSED.test(c) || (mixed && LOOKALIKE.test(c)) ? code(c) : c)).join("");
}

/** @param {string} text @returns {string} */
export function visibleText(text) {
  return text.replace(HIDDEN, code).replace(/[\p{L}\p{M}\p{N}\uff01-\uff5e\u{1d400}-\u{1d7ff}]+/gu, marked);
}
