/**
 * Today's known offenders of the face, size and function-length rules (house_test.ts), written down when the rules
 * were added while other work was still landing. Each list may only shrink: an entry that no longer offends (a name
 * now used by another part or no longer exported, a file or function now within its limit) fails the rules until it
 * is removed here. Do not add to these lists; make the name private, split the file, or cut the function into named
 * stages.
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

/**
 * Product functions over the length limit today ("path name" -> the lines it had, which it may not exceed): those
 * in files owned by other work in flight (cli/_load_args.ts, site/web), left for their owners to cut.
 */
export const FUNCTION_ALLOWED: Readonly<Record<string, number>> = {
  "site/web/app.js load": 96,
};
