/** Where requests go: a base URL split into what a raw HTTP/1.1 connection needs. */

/** Host, port and path prefix of a server, from its base URL. */
export interface HttpTarget {
  host: string;
  port: number;
  tls: boolean;
  /** Path prefix without a trailing slash ("" for the root). */
  basePath: string;
  /** Value of the Host header. */
  hostHeader: string;
  /** Pool key: one idle-connection list per key. */
  key: string;
}

/**
 * Splits a base URL such as "http://127.0.0.1:8080" (or one with a path prefix).
 * @throws {TypeError} when the URL cannot be parsed or is not http/https.
 */
export function parseBaseUrl(baseUrl: string): HttpTarget {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`Cannot parse base URL "${baseUrl}": pass one like http://127.0.0.1:8080`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`Cannot use base URL "${baseUrl}": only http and https are supported`);
  }
  const tls = url.protocol === "https:";
  const port = url.port === "" ? (tls ? 443 : 80) : Number(url.port);
  // URL keeps IPv6 hosts in brackets; sockets want them bare.
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const basePath = url.pathname.replace(/\/+$/, "");
  return { host, port, tls, basePath, hostHeader: url.host, key: `${url.protocol}//${url.host}` };
}
