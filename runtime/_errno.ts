/**
 * The one errno vocabulary of the runtime: why a file operation failed, read from Node's errno code (`ENOENT`) or,
 * where Deno raised its own error, the error's name (`NotFound`). Every file helper classifies through here, and
 * every failed write is said in the words of WRITE_FAILURE_WORDS.
 */

/** Why a file operation failed, in the runtime's words. */
export type ErrnoKind = "not_found" | "not_folder" | "permission_denied" | "is_directory" | "exists" | "link" | "other";

const KINDS: Readonly<Record<string, ErrnoKind>> = {
  ENOENT: "not_found",
  NotFound: "not_found",
  ENOTDIR: "not_folder",
  NotADirectory: "not_folder",
  EACCES: "permission_denied",
  EPERM: "permission_denied",
  PermissionDenied: "permission_denied",
  NotCapable: "permission_denied",
  EISDIR: "is_directory",
  IsADirectory: "is_directory",
  EEXIST: "exists",
  AlreadyExists: "exists",
  ELOOP: "link",
};

/**
 * A failed write in words, by its errno code: the one table both the check of a results folder before a run and
 * a write that fails during it read (undefined for a code it does not name).
 */
export const WRITE_FAILURE_WORDS: Readonly<Record<string, string>> = {
  ENOSPC: "no space left on the disk",
  EDQUOT: "the disk quota is used up",
  EIO: "an input/output error on the disk",
  EROFS: "the disk is read-only",
  EFBIG: "the file grew past the largest size the disk allows",
  EACCES: "the folder is not writable by this user",
  EPERM: "the folder is not writable by this user",
  ENOTDIR: "a part of the path is a file, not a folder",
  EEXIST: "a part of the path is a file, not a folder",
};

/** The error's errno code, else its name ("" when it has neither). */
export function errnoOf(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  return typeof code === "string" ? code : typeof name === "string" ? name : "";
}

/** What kind of failure `error` is; "other" for anything the vocabulary does not name. */
export function errnoKind(error: unknown): ErrnoKind {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  return KINDS[String(code)] ?? KINDS[String(name)] ?? "other";
}

/** A thrown value as text: an Error's message, anything else as it prints. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A thrown value's first line, at most `max` characters: the reason a result records or an ending prints. */
export function errorLine(error: unknown, max = 300): string {
  return errorMessage(error).split("\n")[0]!.slice(0, max);
}
