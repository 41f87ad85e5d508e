/**
 * Loopback classification of a server URL. Standard latency is a loopback measurement: a server elsewhere makes
 * the run nonconforming. Loopback here is 127.0.0.0/8, ::1 (also as an IPv4-mapped 127/8 address), and the name
 * "localhost".
 */

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
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new TypeError(`Cannot use server URL "${baseUrl}": not a URL; pass e.g. --url http://127.0.0.1:8080`, {
      cause,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`Cannot use server URL "${baseUrl}": only http and https are supported`);
  }
  const host = url.hostname.toLowerCase();
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
