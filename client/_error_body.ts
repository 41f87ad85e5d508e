/** How an HTTP error answer is said in a request's error message (the streaming and the non-streaming client). */

/**
 * The message of an HTTP error answer, as one line a person can read: a JSON error's own message (OpenAI's
 * `{"error": {"message"}}`, `{"error": "..."}` or `{"message"}`), or a short plain-text body's first line, kept
 * whole; any other body (an HTML page, a long or binary text) is described by its content type and size, never
 * copied: a web server's error page is not the engine's evidence and must not flood a terminal.
 */
export function errorBodyMessage(status: number, contentType: string | undefined, bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes).trim();
  const type = contentType === undefined ? "no Content-Type" : `Content-Type ${contentType}`;
  if (text === "") return `HTTP ${status} with an empty body (${type})`;
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const error = parsed.error;
    if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string") {
      return (error as { message: string }).message;
    }
    if (typeof error === "string") return error;
    if (typeof parsed.message === "string") return parsed.message;
    if (typeof parsed.detail === "string") return parsed.detail;
  } catch {
    // not JSON: described below
  }
  const firstLine = text.split(/\r?\n/, 1)[0]!;
  const looksLikeMarkup = /^\s*</.test(text) || /html|xml/i.test(contentType ?? "");
  if (!looksLikeMarkup && firstLine.length <= 300 && !text.includes("\n")) return firstLine;
  return `a ${looksLikeMarkup ? "markup (HTML) " : ""}body of ${bytes.length} bytes that is no JSON error (${type}; ` +
    "not kept)";
}
