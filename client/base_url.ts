/**
 * A server's base URL, parsed once: what a raw HTTP/1.1 connection needs (host, port, TLS, path prefix, Host
 * header, pool key), and whether it is loopback. Standard latency is a loopback measurement, so a server elsewhere
 * makes a run nonconforming. Loopback here is 127.0.0.0/8, ::1 (also as an IPv4-mapped 127/8 address), and the
 * name "localhost". No name is ever resolved.
 */

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

function parseHttpUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new TypeError(`Cannot parse base URL "${baseUrl}": not a URL; pass e.g. --url http://127.0.0.1:8080`, {
      cause,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`Cannot use base URL "${baseUrl}": only http and https are supported`);
  }
  return url;
}

/**
 * Splits a base URL such as "http://127.0.0.1:8080" (or one with a path prefix).
 * @throws {TypeError} when the URL cannot be parsed or is not http/https.
 */
export function parseBaseUrl(baseUrl: string): HttpTarget {
  const url = parseHttpUrl(baseUrl);
  const tls = url.protocol === "https:";
  const port = url.port === "" ? (tls ? 443 : 80) : Number(url.port);
  // URL keeps IPv6 hosts in brackets; sockets want them bare.
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const basePath = url.pathname.replace(/\/+$/, "");
  return { host, port, tls, basePath, hostHeader: url.host, key: `${url.protocol}//${url.host}` };
}

/**
 * Whether a host (name or address, as written on a command line, in a profile or in a URL) is loopback:
 * "localhost", 127.0.0.0/8, or ::1 / an IPv4-mapped 127/8 address with or without brackets. No name is resolved.
 * The one rule for every place that checks loopback (server URLs, engine profiles, the mock's bind address).
 */
export function isLoopbackHost(host: string): boolean {
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) return false;
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare.includes("[") || bare.includes("]")) return false;
  let normalized: string;
  try {
    // The URL parser canonicalizes case, IPv4 shorthand (127.1) and IPv6 spellings (0:0:0:0:0:0:0:1, ::ffff:127.0.0.1).
    normalized = new URL(`http://${bare.includes(":") ? `[${bare}]` : bare}/`).hostname.toLowerCase();
  } catch {
    return false;
  }
  return normalized === "localhost" || /^127\.\d+\.\d+\.\d+$/.test(normalized) || normalized === "[::1]" ||
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(normalized);
}

/** What the runner knows about where a base URL points. */
export interface LoopbackVerdict {
  loopback: boolean;
  /** Hostname as the URL parser normalized it (brackets kept for IPv6). */
  host: string;
  reason: string;
}

/**
 * Classifies a base URL without resolving any name (no traffic is sent).
 * @throws {TypeError} when the text is not an http(s) URL.
 */
export function classifyServerUrl(baseUrl: string): LoopbackVerdict {
  const host = parseHttpUrl(baseUrl).hostname.toLowerCase();
  const loopback = isLoopbackHost(host);
  return {
    loopback,
    host,
    reason: loopback
      ? `${host} is a loopback address`
      : `the server ${host} is not on loopback (127.0.0.0/8, ::1, localhost); standard latency is a loopback ` +
        "measurement",
  };
}
