/**
 * Today's known offenders of the face and size rules (house_test.ts), written down when the rules were added while
 * other work was still landing. Each list may only shrink: an entry that no longer offends (a name now used by
 * another part or no longer exported, a file now within the size) fails the rules until it is removed here. Do not
 * add to these lists; make the name private, or split the file.
 */

/** Names a part's mod.ts exports that no other part uses yet (part -> names). */
export const FACE_ALLOWED: Readonly<Record<string, readonly string[]>> = {
  contract: [
    "COMMAND_LINE_PROVENANCE",
    "REQUEST_STATUSES",
    "SANITY_CATEGORIES",
    "STREAM_END_KINDS",
    "xoshiro128ss",
  ],
};

/** Product files over the size limit today (path -> the lines it had, which it may not exceed). */
export const SIZE_ALLOWED: Readonly<Record<string, number>> = {};
