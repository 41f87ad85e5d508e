/**
 * The kinds of private data that engine logs, shell histories and cluster job scripts carry beyond what answers do
 * (sanitize.ts applies them with its own rules): provider tokens, cookies, credentials on command lines (curl -u,
 * mysql -p, redis-cli -a), MAC addresses in Cisco and bare notation, machine ids and serial numbers, host names
 * with a suffix or a fully qualified name, private addresses written as an integer, in hex, IPv4-mapped in hex or
 * reversed (in-addr.arpa), another user's home written short (~bob), percent-encoded paths, and secret-named keys in
 * JSON nested in JSON (escaped quotes). Each is a pure text-to-text pass that leaves its own placeholders alone.
 */

/**
 * Every placeholder kind the sanitizer writes (`private-ip-N` stands for `<private-ip-1>`, `<private-ip-2>`, ...).
 * The stated-value rules accept a placeholder only from this list; site/web/stated.js restates it in its own code,
 * and tests/unit/sanitize/sanitize_placeholders_test.ts holds both equal to what the sanitizer writes.
 */
export const PLACEHOLDER_KINDS = [
  "home",
  "abs-path",
  "user",
  "host",
  "email",
  "mac",
  "gpu-uuid",
  "machine-id",
  "serial",
  "private-ip-N",
  "secret",
] as const;

/** Any placeholder of PLACEHOLDER_KINDS in a text. */
export const REDACTION_PLACEHOLDER = new RegExp(
  `<(?:${PLACEHOLDER_KINDS.map((k) => k.replace("-N", "-\\d+")).join("|")})>`,
);

/** Provider tokens with a recognizable prefix, beside sanitize.ts's TOKEN_PATTERNS. */
export const PROVIDER_TOKEN_PATTERNS: readonly RegExp[] = [
  /\bxapp-\d+-[A-Za-z0-9-]{10,}/g,
  /\bxox[a-z]\.xox[a-z]-[A-Za-z0-9-]{10,}/g,
  /(?<=\bhooks\.slack\.com\/services\/)[A-Za-z0-9/]{10,}/g,
  /\bya29\.[A-Za-z0-9_-]{20,}/g,
  /\bGOCSPX-[A-Za-z0-9_-]{20,}/g,
  /\bgsk_[A-Za-z0-9]{20,}/g,
  /\br8_[A-Za-z0-9]{20,}/g,
  /\bdo[opr]_v1_[a-f0-9]{40,}/g,
  /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g,
  /\bpplx-[A-Za-z0-9]{32,}/g,
  /\bxai-[A-Za-z0-9]{32,}/g,
  /\bpypi-[A-Za-z0-9_-]{16,}/g,
  /\bdckr_pat_[A-Za-z0-9_-]{20,}/g,
  // A Telegram bot token: the bot's number, a colon, and "AA" with 30 or more characters.
  /\b\d{8,10}:AA[A-Za-z0-9_-]{30,}/g,
];

/** Names (beside sanitize.ts's) whose value is a secret: database passwords in the environment, storage keys. */
export const MORE_SECRET_NAMES = "pgpassword|(?:[A-Za-z0-9]+[_-])+(?:pass|pwd)|account[_-]?key|" +
  // Package managers' credentials: .npmrc's _auth and _authToken (npm_config__auth in the environment), Yarn's
  // npmAuthToken.
  "shared[_-]?access[_-]?key|_+auth(?:token)?|[a-z0-9]+authtoken|" +
  // A cloud service account's key id (Google's private_key_id: 40 hex digits, which would pass for a commit).
  "private[_-]?key[_-]?id";

/**
 * Environment variables whose upper-case name ends in a credential word (NPM_TOKEN, CARGO_REGISTRY_TOKEN,
 * HF_HUB_TOKEN, CI_JOB_PAT): the value. Upper case only, so "bos_token = 1" in a model's metadata stays.
 */
export function redactEnvironmentCredentials(text: string, secret: string): string {
  return text.replace(
    /(?<![\w-])((?:[A-Z][A-Z0-9]*_)+(?:TOKEN|AUTH|PAT|SECRET|PASSWORD)=)(["']?)(?!<)([^\s"'`;&|]+)\2/g,
    (m, head: string, quote: string, value: string) => (value === secret ? m : `${head}${quote}${secret}${quote}`),
  );
}

/** Cookie attributes: not a secret, so a Set-Cookie header keeps them. */
const COOKIE_ATTRIBUTES = /^(?:path|domain|expires|max-age|samesite|secure|httponly|priority|partitioned)$/i;

/** Every value of a Cookie or Set-Cookie header, in a header line, a -H flag or a JSON key (escaped quotes too). */
export function redactCookies(text: string, secret: string): string {
  return text.replace(
    /(\b(?:set-)?cookie\b(?:\\*["'])?\s*[:=]\s*(?:\\*["'])?)([^"'\r\n\\]+)/gi,
    (_m, head: string, pairs: string) =>
      head + pairs.replace(
        /([^\s=;,]+)=([^;,\s]+)/g,
        (pair, name: string, value: string) =>
          COOKIE_ATTRIBUTES.test(name) || value === secret ? pair : `${name}=${secret}`,
      ),
  );
}

/** A quoted or bare argument: its text without the quotes. */
const ARGUMENT = String.raw`(?:'[^'\n]*'|"[^"\n]*"|[^\s'"]+)`;

/**
 * Credentials on command lines: curl's -u/--user/--proxy-user user:password (the password), mysql's -pPASSWORD,
 * redis-cli's -a PASSWORD, sshpass -p PASSWORD and docker (or podman) login -p PASSWORD. A curl user without a password (curl asks for it) stays.
 */
export function redactCommandCredentials(text: string, secret: string): string {
  return text.replace(
    new RegExp(String.raw`(\bcurl\b[^\n|;&]*?\s(?:-u\s*|-U\s*|--user[\s=]+|--proxy-user[\s=]+))(${ARGUMENT})`, "g"),
    (m, head: string, argument: string) => {
      const quote = /^['"]/.test(argument) ? argument[0]! : "";
      const inner = quote === "" ? argument : argument.slice(1, -1);
      const colon = inner.indexOf(":");
      if (colon < 0 || inner.slice(colon + 1) === secret || inner.slice(colon + 1) === "") return m;
      return `${head}${quote}${inner.slice(0, colon)}:${secret}${quote}`;
    },
  ).replace(
    /(\bmysql(?:dump|admin)?\b[^\n|;&]*?\s-p)(?!<)([^\s'"]+)/g,
    (_m, head: string) => `${head}${secret}`,
  ).replace(
    new RegExp(
      String.raw`(\b(?:redis-cli\b[^\n|;&]*?\s-a|sshpass\s+-p|(?:docker|podman)\s+login\b[^\n|;&]*?\s-p)\s+)(?!<)` +
        `(${ARGUMENT})`,
      "g",
    ),
    (_m, head: string) => `${head}${secret}`,
  );
}

/**
 * MAC addresses in Cisco notation (3cec.ef12.3456, with a hex letter so that a version stays) and as 12 bare hex
 * digits after a MAC name (mac_address=3cecef123456).
 */
export function redactMoreMacs(text: string): string {
  return text.replace(
    /(?<![0-9A-Fa-f.])(?=[0-9.]*[A-Fa-f])[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}(?![0-9A-Fa-f.])/g,
    "<mac>",
  ).replace(
    /(\b(?:mac|hw ?addr|ether|permaddr|mac[_-]?addr(?:ess)?)\b(?:\\*["'])?\s*[:=]?\s*(?:\\*["'])?)[0-9A-Fa-f]{12}\b/gi,
    "$1<mac>",
  );
}

/** Machine ids, boot ids, board and system UUIDs, GPU UUIDs without the GPU- prefix, and serial numbers. */
export function redactMachineIds(text: string): string {
  const HEX_ID = "[0-9A-Fa-f]{32}|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}";
  return text.replace(
    new RegExp(
      String.raw`(\b(?:machine[_-]?id|boot[_-]?id|product[_-]?uuid|system[_-]?uuid|dbus[_-]?id|host[_-]?id|` +
        String.raw`gpu[_-]?uuid|uuid)\b(?:\\*["'])?\s*[:=]?\s*(?:\\*["'])?)(?:${HEX_ID})\b`,
      "gi",
    ),
    "$1<machine-id>",
  ).replace(
    /(\bserial(?:[ _-]?(?:number|no))?\b(?:\\*["'])?\s*[:=]?\s*(?:\\*["'])?)(?=[A-Za-z-]*\d)[A-Za-z0-9-]{6,}\b/gi,
    "$1<serial>",
  ).replace(
    // rocm-smi's and amd-smi's "Unique ID: 0x5a1b2c3d4e5f6789" (the GPU's serial in hex).
    /(\bunique[ _-]?id\b(?:\\*["'])?\s*[:=]?\s*(?:\\*["'])?)(?:0x)?[0-9A-Fa-f]{8,}\b/gi,
    "$1<serial>",
  );
}

/** Suffixes that only a private network resolves. */
const PRIVATE_SUFFIX = "local|lan|internal|corp|home\\.arpa|intranet|localdomain|private|priv|lab|cluster";
/** Top-level domains of fully qualified host names (two-letter words such as "in" or "it" are left out). */
const PUBLIC_TLD = "com|net|org|edu|gov|mil|io|ai|co|dev|app|cloud|us|uk|de|fr|nl|ch|se|fi|dk|jp|cn|kr|au|ca|br|eu";
/** Public services whose names say nothing about the machine (a subdomain of these stays). */
const PUBLIC_DOMAINS = new Set([
  "github.com",
  "githubusercontent.com",
  "huggingface.co",
  "hf.co",
  "openai.com",
  "anthropic.com",
  "google.com",
  "googleapis.com",
  "amazonaws.com",
  "npmjs.org",
  "npmjs.com",
  "pypi.org",
  "pythonhosted.org",
  "nvidia.com",
  "amd.com",
  "microsoft.com",
  "slack.com",
  "docker.io",
  "docker.com",
  "ghcr.io",
  "cloudflare.com",
  "ggml.ai",
  // XML and SVG namespaces (xmlns="http://www.w3.org/2000/svg").
  "w3.org",
]);
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?";

/**
 * Host names with a private suffix (node17.cluster.local, db01.internal, nas.home.arpa) and fully qualified names
 * of three or more labels under a public top-level domain (login01.hpc.uni.edu), except public services'.
 */
export function redactHostNames(text: string): string {
  // In JSON text a line break is "\n": the "n" before a host name is the escape's, not the name's.
  const replace = (isPrivate: (name: string) => boolean) => (name: string, offset: number, whole: string) => {
    const escape = whole[offset - 1] === "\\" && /^[nrt]/.test(name) ? name[0]! : "";
    return isPrivate(name.slice(escape.length)) ? `${escape}<host>` : name;
  };
  return text.replace(
    new RegExp(`(?<![\\w.@<-])(?:${LABEL}\\.)+(?:${PRIVATE_SUFFIX})(?![\\w-]|\\.[A-Za-z0-9])`, "gi"),
    replace(() => true),
  ).replace(
    new RegExp(`(?<![\\w.<-])${LABEL}(?:\\.${LABEL}){1,}\\.(?:${PUBLIC_TLD})(?![\\w-]|\\.[A-Za-z0-9])`, "gi"),
    replace((name) => !PUBLIC_DOMAINS.has(name.toLowerCase().split(".").slice(-2).join("."))),
  );
}

/**
 * Private IPv4 addresses in notations other than dotted quads: reversed (5.0.0.10.in-addr.arpa), a URL host as one
 * integer (http://167772161/) or in hex (http://0x0a000001/), and IPv4-mapped IPv6 in hex (::ffff:a01:203).
 * `placeholder(octets)` numbers a private address, or returns null for a public one.
 */
export function redactAddressNotations(text: string, placeholder: (octets: number[]) => string | null): string {
  const fromNumber = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  return text.replace(
    /(?<![\w.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?=\.in-addr\.arpa\b)/gi,
    (m, d: string, c: string, b: string, a: string) => placeholder([a, b, c, d].map(Number)) ?? m,
  ).replace(
    /(?<=:\/\/(?:[^\s/@]*@)?)(\d{8,10}|0x[0-9A-Fa-f]{8})(?=[:/\s"']|$)/g,
    (m, value: string) => {
      const n = Number(value);
      return n <= 0xffffffff ? placeholder(fromNumber(n)) ?? m : m;
    },
  ).replace(
    // A cloud host named by its address (ip-10-0-3-12, as EC2 names them).
    /(?<![\w.-])ip-(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})(?![\w-])/g,
    (m, a: string, b: string, c: string, d: string) => placeholder([a, b, c, d].map(Number)) ?? m,
  ).replace(
    /(?<![0-9A-Za-z:])::ffff:([0-9A-Fa-f]{1,4}):([0-9A-Fa-f]{1,4})(?![0-9A-Za-z:.])/gi,
    (m, high: string, low: string) => placeholder(fromNumber(parseInt(high, 16) * 65536 + parseInt(low, 16))) ?? m,
  );
}

/** A home written short (~bob, ~bob/models): the user name is private whoever it is; ~/ stays. */
export function redactShortHomes(text: string): string {
  return text.replace(/(?<![\w~/.<>-])~[A-Za-z_][A-Za-z0-9_-]*(?=[/\s"'`:;,)\]}]|$)/g, "<home>")
    // A key file's name in ~/.ssh (id_ed25519_bob_work) names its owner or their machines.
    .replace(/(~\/\.ssh\/)(?!<)[^\s"'`:;,)\]}]+/g, "$1<secret>");
}

/**
 * Percent-encoded paths (%2Fhome%2Fbob, C%3A%5CUsers%5Cbob): each encoded run is decoded, sanitized by `inner`, and
 * encoded again when that changed it (placeholders stay readable: "<home>%2Fmodels").
 */
export function redactPercentEncoded(text: string, inner: (decoded: string) => string): string {
  // A run is matched only from its first character (the lookbehind): linear in the text, not quadratic on a long
  // run without an encoded separator (a 4 MiB answer of one letter).
  return text.replace(/(?<![A-Za-z0-9%._~+-])[A-Za-z0-9%._~+-]*%(?:2F|5C)[A-Za-z0-9%._~+-]*/gi, (run) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(run);
    } catch {
      return run;
    }
    const sanitized = inner(decoded);
    if (sanitized === decoded) return run;
    return encodeURIComponent(sanitized).replace(/%3C([a-z0-9-]+)%3E/g, "<$1>");
  });
}

/**
 * Secret-named keys in JSON nested in JSON: \"password\": \"x\" (quotes escaped once or more), \"secret\": 123, and
 * password: \"x\" (a log line inside a JSON string).
 * `names` is the alternation of secret names.
 */
export function redactNestedJsonSecrets(text: string, names: string, secret: string): string {
  const quoted = replaceClosed(
    text,
    new RegExp(`(?<![\\w-])(-{0,2}${names})(\\s*[=:]\\s*)(\\\\+)(["'])`, "gi"),
    new RegExp(`(?<![\\w-])(-{0,2}${names})(\\s*[=:]\\s*)((?:\\\\)+["'])((?:(?!\\3)[^\\n])*?)\\3`, "giy"),
    (key, runs) => runs.closes(key.index + key[0].length, key[3]!.length, key[4]!, true),
    (m, name: string, sep: string, q: string, value: string) =>
      value === "" || value === secret ? m : `${name}${sep}${q}${secret}${q}`,
  );
  return replaceClosed(
    quoted,
    new RegExp(`${escapedKey(names)}(\\s*:\\s*)\\2"`, "gi"),
    new RegExp(`${escapedKey(names)}(\\s*:\\s*)\\2"((?:(?!\\2")[\\s\\S])*?)\\2"`, "giy"),
    (key, runs) => runs.closes(key.index + key[0].length, key[2]!.length, '"', false),
    (m, name: string, run: string, colon: string, value: string) =>
      value === "" || value === secret ? m : `"${name}${run}"${colon}${run}"${secret}${run}"`,
  ).replace(
    new RegExp(`${escapedKey(names)}(\\s*:\\s*)(-?[0-9A-Za-z][0-9A-Za-z._+-]*)(?=\\s*[,}\\]])`, "gi"),
    (m, name: string, run: string, colon: string, value: string) =>
      value === "null" || value === "true" || value === "false" ? m : `"${name}${run}"${colon}${run}"${secret}${run}"`,
  );
}

/**
 * `text.replace(whole, replace)` (`whole` sticky here), where `whole` is a key (`key`, global, matched from the same
 * places) and a quoted value read up to the first closing quote: a key whose quote `closes` says never closes is
 * passed by, as the whole pattern would be, without reading the rest of the text. Reading it from every such key
 * was quadratic: keys left open, each escaped once less than the one before, 828 of them in 1 MiB of text, took
 * 199 s; a key that closes reads only up to its close, which the match then consumes.
 */
function replaceClosed(
  text: string,
  key: RegExp,
  whole: RegExp,
  closes: (key: RegExpExecArray, runs: QuoteRuns) => boolean,
  replace: (m: string, ...groups: string[]) => string,
): string {
  const runs = new QuoteRuns(text);
  let out = "";
  let copied = 0;
  for (let found = key.exec(text); found !== null; found = key.exec(text)) {
    if (!closes(found, runs)) {
      key.lastIndex = found.index + 1;
      continue;
    }
    whole.lastIndex = found.index;
    const match = whole.exec(text);
    if (match === null) { // Not reached: the key matched here and its value closes.
      key.lastIndex = found.index + 1;
      continue;
    }
    out += text.slice(copied, match.index) + replace(...(match as unknown as [string, ...string[]]));
    copied = key.lastIndex = whole.lastIndex;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Where a quote escaped by a run of backslashes can close a value, looked up in constant time: for each position,
 * the longest run of backslashes before a quote at or after it (on the same line, for a value that may not cross
 * one), -1 where there is none. Built once per text and quote, when a key first asks.
 */
class QuoteRuns {
  readonly #text: string;
  readonly #ahead = new Map<string, Int32Array>();

  constructor(text: string) {
    this.#text = text;
  }

  /** Whether `run` backslashes and `quote` occur at or after `from` (before the line's end when `lineOnly`). */
  closes(from: number, run: number, quote: string, lineOnly: boolean): boolean {
    const text = this.#text;
    if (from + run > text.length) return false;
    if (lineOnly) {
      for (let at = from; at < from + run; at++) if (text.charCodeAt(at) === 0x0a) return false;
    }
    const kind = `${quote}${lineOnly}`;
    let ahead = this.#ahead.get(kind);
    if (ahead === undefined) {
      ahead = runsAhead(text, quote.charCodeAt(0), lineOnly);
      this.#ahead.set(kind, ahead);
    }
    return ahead[from + run]! >= run;
  }
}

function runsAhead(text: string, quote: number, lineOnly: boolean): Int32Array {
  const ahead = new Int32Array(text.length + 1);
  let backslashes = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    ahead[at] = code === quote ? backslashes : -1;
    backslashes = code === 0x5c ? backslashes + 1 : 0;
  }
  ahead[text.length] = -1;
  for (let at = text.length - 1; at >= 0; at--) {
    if (lineOnly && text.charCodeAt(at) === 0x0a) continue;
    if (ahead[at + 1]! > ahead[at]!) ahead[at] = ahead[at + 1]!;
  }
  return ahead;
}

/**
 * A secret-named key between quotes escaped alike (\"password\", \\\"password\\\"): group 1 the name, group 2 its
 * closing backslashes. The match starts at the opening quote and a lookbehind finds as many backslashes before it:
 * a pattern that started at the backslashes would try every one of a long run, each time reading to its end
 * (quadratic: a usage chunk of 4 MiB of escaped backslashes held the run for hours). The backslashes before the
 * quote stay outside the match, so a replacement leaves them as they are.
 */
function escapedKey(names: string): string {
  return `"(${names})(\\\\+)"(?<=\\2"[^"\\\\]+\\2")`;
}

/**
 * Paths with JSON-escaped slashes (\\/home\\/bob\\/models, \\/fsx\\/team\\/ckpt): each run is read with plain
 * slashes, sanitized by `inner`, and escaped again when that changed it.
 */
export function redactEscapedPaths(text: string, inner: (decoded: string) => string): string {
  return text.replace(/(?<![\w\\])(?:\\\/[^\\/\s"'<>]+){2,}/g, (run) => {
    const decoded = run.replaceAll("\\/", "/");
    const sanitized = inner(decoded);
    return sanitized === decoded ? run : sanitized.replaceAll("/", "\\/");
  });
}

/**
 * A string override of a model's metadata (`--override-kv general.name=str:VALUE`, as an observed llama-server
 * command line carries it): the value may be anything a person named, so it goes, up to the next option. The same
 * override without its flag (the value of a parsed option, `general.name=str:VALUE`, a dotted metadata key at the
 * start of a word) goes too, up to the next override, option, table cell or double quote (the end of a JSON string).
 */
export function redactOverrideKv(text: string, secret: string): string {
  return text.replace(
    /(--override-kv['"]?(?:=|\s+)['"]?[\w.-]+=str:)(?!<secret>)[^\n]*?(?=['"]?(?:\s+['"]?--?[A-Za-z]|,[\w.-]+=|\n|$))/g,
    `$1${secret}`,
  ).replace(
    /((?<![^\s"'|,=])[A-Za-z][\w-]*(?:\.[\w-]+)+=str:)(?!<secret>)[^\n"]*?(?=\\?"|'?(?:\s+['"]?--?[A-Za-z]|,[\w.-]+=|\s+\||\n|$))/g,
    `$1${secret}`,
  );
}
