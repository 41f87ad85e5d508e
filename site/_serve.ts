/**
 * `site serve`: a static file server for a built site, on loopback, for looking at a site before it is published.
 * It serves only regular files inside the site folder (no symbolic links, no dotfiles), answers GET and HEAD, and
 * sends evidence files as immutable bytes. What a static host does, nothing more: the pages verify in the browser.
 */
import type { HttpServerRequest, HttpServerResponse } from "../runtime/mod.ts";

/** Reads a file of the site folder by relative path; null unless it is a regular file inside the folder. */
export type SiteFileReader = (relativePath: string) => Promise<Uint8Array | null>;

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json",
  svg: "image/svg+xml",
};

/** The relative file a URL path names, or null when it names nothing servable. */
export function sitePathOf(url: string): string | null {
  const raw = url.split("?")[0]?.split("#")[0] ?? "";
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return null;
  }
  if (!path.startsWith("/") || path.includes("\0") || path.includes("\\")) return null;
  const segments = path.slice(1).split("/");
  const last = segments.pop();
  if (segments.some((s) => s === "" || s.startsWith("."))) return null;
  if (last === undefined || last === "") return [...segments, "index.html"].join("/");
  if (last.startsWith(".")) return null;
  return [...segments, last].join("/");
}

/** A request handler serving the site read by `read`. */
export function siteRequestHandler(
  read: SiteFileReader,
): (request: HttpServerRequest, response: HttpServerResponse) => Promise<void> {
  return async (request, response) => {
    const plain = { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { ...plain, allow: "GET, HEAD" });
      await response.end("method not allowed\n");
      return;
    }
    const path = sitePathOf(request.url);
    const gzipOk = /\bgzip\b/.test(request.headers["accept-encoding"] ?? "");
    const packed = path !== null && gzipOk && !path.endsWith(".gz") ? await read(`${path}.gz`) : null;
    const bytes = path === null ? null : packed ?? await read(path);
    if (path !== null && bytes === null && !path.endsWith("index.html") && await read(`${path}/index.html`) !== null) {
      response.writeHead(301, { ...plain, location: `/${path}/` });
      await response.end("moved\n");
      return;
    }
    if (path === null || bytes === null) {
      response.writeHead(404, plain);
      await response.end("not found\n");
      return;
    }
    const extension = path.includes(".") ? path.slice(path.lastIndexOf(".") + 1) : "";
    const evidence = path.startsWith("evidence/");
    response.writeHead(200, {
      "content-type": evidence ? "application/octet-stream" : TYPES[extension] ?? "application/octet-stream",
      "content-length": String(bytes.length),
      ...(packed === null ? {} : { "content-encoding": "gzip", vary: "accept-encoding" }),
      "x-content-type-options": "nosniff",
      "cache-control": evidence ? "public, max-age=31536000, immutable" : "no-cache",
    });
    await response.end(request.method === "HEAD" ? "" : bytes);
  };
}
