/**
 * Redaction of everything a result folder publishes: home folders (Linux, macOS, Windows, WSL, /var/home), other
 * absolute data and model paths (`<abs-path>/<file name>`), the user and host names (a host name of one or two
 * characters only where it stands as a host: user@gx, gx:~$, gx.local), e-mail and MAC addresses, GPU UUIDs,
 * private network addresses (RFC 1918, link-local, CGNAT 100.64.0.0/10, IPv6 ULA and link-local), keys, tokens,
 * private-key blocks, JWTs and passwords in URLs, and what logs carry besides (_kinds.ts: cookies,
 * command-line credentials, machine ids and serials, host names with a suffix, other address notations, ~user,
 * percent-encoded paths, JSON nested in JSON) become stable placeholders (`<home>`, `<abs-path>`, `<user>`,
 * `<host>`, `<email>`, `<mac>`, `<gpu-uuid>`, `<machine-id>`, `<serial>`, `<private-ip-N>`, `<secret>`; the list
 * is PLACEHOLDER_KINDS). Loopback addresses (127.0.0.1, ::1, localhost), public addresses, system paths (/usr,
 * /etc, /dev, /proc, C:\Program Files), versions, commit hashes and URL paths stay visible. Sanitizing twice changes nothing more. Redaction is best effort; the operator still
 * reads the folder before sharing it.
 */
import { sys } from "../runtime/mod.ts";
import {
  MORE_SECRET_NAMES,
  PROVIDER_TOKEN_PATTERNS,
  redactAddressNotations,
  redactCommandCredentials,
  redactCookies,
  redactEnvironmentCredentials,
  redactEscapedPaths,
  redactHostNames,
  redactMachineIds,
  redactMoreMacs,
  redactNestedJsonSecrets,
  redactOverrideKv,
  redactPercentEncoded,
  redactShortHomes,
} from "./_kinds.ts";
export { PLACEHOLDER_KINDS, REDACTION_PLACEHOLDER } from "./_kinds.ts";

/** Who runs the tool, and the state that keeps placeholders stable across one run's files. */
export interface SanitizeContext {
  /** The current user name (os.userInfo); generic names such as "root" or "user" are only redacted in paths. */
  username?: string | null;
  /** The machine's host name; its short form (before the first dot) is redacted as well. */
  hostname?: string | null;
  /** The home folder when it is not under /home, /Users, C:\Users or /root (e.g. /var/lib/alice). */
  homeDir?: string | null;
  /** Literal secrets known to the caller (an --api-key value) that match no pattern. */
  secrets?: readonly string[];
  /** Private address -> its number; share one map to number addresses alike in every file of a run. */
  addressNumbers?: Map<string, number>;
  /**
   * Texts already sanitized in this context and what they became (a load writes the same keys and reasons on every
   * row: about 0.8 ms a row without it). Equivalent to sanitizing again: the address numbering only grows.
   */
  memo?: Map<string, string>;
}

/** Most texts a sanitizer remembers, and the longest it remembers (longer ones are sanitized every time). */
const MEMO_ENTRIES = 65_536, MEMO_CHARS = 1_024;

/** A text and a JSON sanitizer sharing one context (and so one address numbering). */
export interface Sanitizer {
  text(text: string): string;
  json(value: unknown): unknown;
}

const SECRET = "<secret>";
/** Names too common to redact as words: they are redacted only as part of a home folder path. */
const GENERIC_NAMES = new Set(
  "root user users admin administrator ubuntu debian fedora guest runner localhost test home default server model system assistant tool"
    .split(" "),
);

// Tokens with a recognizable prefix. Lengths keep short words such as "sk-1" or "hf_hub" untouched.
const TOKEN_PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  /\bsk-(?:proj-|ant-|or-)?[A-Za-z0-9_-]{16,}/g,
  /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g,
  /\bhf_[A-Za-z0-9]{20,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  // A JSON Web Token: header.payload.signature, the first two base64url-encoded JSON objects ("eyJ" is "{\"").
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/**
 * A bare 40-character AWS secret access key: base64 letters with upper case, lower case and a digit. A Git commit
 * (40 lowercase hex) has no upper case and stays.
 */
const AWS_SECRET = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

function isAwsSecretLike(text: string): boolean {
  return /[A-Z]/.test(text) && /[a-z]/.test(text) && /[0-9]/.test(text) && !/^[0-9a-fA-F]+$/.test(text);
}

/** user:password@ in a URL of any scheme (postgres://u:pw@host, https://u:pw@host). */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:<>"']+):([^\s/@<>"']+)@/gi;

const SECRET_NAME =
  `(?:[A-Za-z0-9]+[_-])*(?:api[_-]?key|apikey|secret|secret[_-]?key|client[_-]?secret|password|passwd|access[_-]?token|auth[_-]?token|refresh[_-]?token|session[_-]?token|bearer[_-]?token|hf[_-]?token|github[_-]?token|gh[_-]?token|private[_-]?key|access[_-]?key|secret[_-]?access[_-]?key|${MORE_SECRET_NAMES})`;
/** Short names that are secrets only as JSON keys, `name=value` or command-line flags ("token: 151645" in a log is not). */
const SECRET_NAME_EXACT = "(?:token|auth|pwd)";
const SECRET_NAME_WHOLE = new RegExp(`^(?:${SECRET_NAME}|${SECRET_NAME_EXACT})$`, "i");
/** Names already judged: sanitizeJson asks of every key of every load row (the pattern cost ~40 us a row). */
const secretNames = new Map<string, boolean>();
/** Whether a JSON key or option name names a secret (api_key, HF_TOKEN, password; not max_tokens, bos_token). */
export function isSecretName(name: string): boolean {
  let secret = secretNames.get(name);
  if (secret === undefined) {
    secret = SECRET_NAME_WHOLE.test(name.replace(/^-+/, ""));
    if (secretNames.size < MEMO_ENTRIES && name.length <= MEMO_CHARS) secretNames.set(name, secret);
  }
  return secret;
}

function redactSecrets(text: string, context: SanitizeContext): string {
  let out = text;
  for (const literal of context.secrets ?? []) {
    if (literal.length >= 4) out = out.split(literal).join(SECRET);
  }
  // Authorization headers in any notation: "Authorization: Bearer x", "authorization": "Basic x", -H 'Authorization: x'.
  out = out.replace(
    /(\bauthorization\b["']?\s*[:=]\s*["']?)(?:(bearer|basic|token)\s+)?([^\s"',;]+)/gi,
    (_m, head: string, scheme: string | undefined, value: string) =>
      value === SECRET ? _m : `${head}${scheme ? `${scheme} ` : ""}${SECRET}`,
  );
  out = out.replace(
    /\b(bearer)\s+([A-Za-z0-9._~+/=-]{8,})/gi,
    (m, word: string, value: string) => value === SECRET ? m : `${word} ${SECRET}`,
  );
  for (const pattern of [...TOKEN_PATTERNS, ...PROVIDER_TOKEN_PATTERNS]) out = out.replace(pattern, SECRET);
  out = redactCookies(out, SECRET);
  out = redactCommandCredentials(out, SECRET);
  out = redactOverrideKv(out, SECRET);
  out = redactEnvironmentCredentials(out, SECRET);
  out = out.replace(
    URL_CREDENTIALS,
    (m, scheme: string, _user: string, password: string) => password === SECRET ? m : `${scheme}${SECRET}@`,
  );
  out = out.replace(AWS_SECRET, (m) => (isAwsSecretLike(m) ? SECRET : m));
  const names = `(?:${SECRET_NAME}|${SECRET_NAME_EXACT})`;
  out = redactNestedJsonSecrets(out, names, SECRET);
  const exact = new RegExp(`^-{0,2}${SECRET_NAME_EXACT}$`, "i");
  // "auth_token": 982734982374 (a JSON number or bare word as the value of a secret-named key)
  out = out.replace(
    new RegExp(`(["'])(${names})\\1(\\s*:\\s*)(-?[0-9A-Za-z][0-9A-Za-z._+-]*)(?=\\s*[,}\\]]|\\s*$)`, "gi"),
    (m, q: string, name: string, colon: string, value: string) =>
      value === "null" || value === "true" || value === "false" ? m : `${q}${name}${q}${colon}"${SECRET}"`,
  );
  // "api_key": "value" / 'password': 'value' (JSON and Python-ish text)
  out = out.replace(
    new RegExp(`(["'])(${names})\\1(\\s*:\\s*)(["'])((?:\\\\.|(?!\\4)[^\\\\])*)\\4`, "gi"),
    (m, q: string, name: string, colon: string, vq: string, value: string) =>
      value === "" || value === SECRET ? m : `${q}${name}${q}${colon}${vq}${SECRET}${vq}`,
  );
  // KEY=value, key: value, --api-key value, --api-key=value (env lines, configs, command lines)
  out = out.replace(
    new RegExp(`(?<![\\w-])(-{0,2}${names})(\\s*[=:]\\s*|\\s+)(["']?)([^\\s"',;&]+)\\3`, "gi"),
    (m, name: string, sep: string, quote: string, value: string) => {
      const isFlag = name.startsWith("-");
      if (/^\s+$/.test(sep) && !isFlag) return m; // "password reset" prose: a bare word needs = or :
      if (exact.test(name) && !isFlag && !sep.includes("=")) return m;
      if (value === SECRET || value.startsWith("<") || value.startsWith("-") || value.startsWith("\\")) return m;
      return `${name}${sep}${quote}${SECRET}${quote}`;
    },
  );
  return out;
}

const PATH_END = "(?=[\\\\/\\s\"'`:;,)\\]}>.…]|$)";
const PATH_PART = "[^\\\\/\\s\"'`:;,)\\]}<>]+";

function redactHomes(text: string, context: SanitizeContext): string {
  let out = text;
  const home = context.homeDir?.replace(/[\\/]+$/, "");
  if (home && home.length > 1 && !/^[A-Za-z]:$/.test(home)) out = out.split(home).join("<home>");
  // POSIX homes: /home, /Users, Fedora Atomic's /var/home, Solaris' /export/home, FreeBSD's /usr/home, and a
  // Windows home seen from WSL (/mnt/c/Users/<name>).
  out = out.replace(
    new RegExp(`(?<![\\w.~>-])(?:/mnt/[A-Za-z])?/(?:home|Users|var/home|export/home|usr/home)/${PATH_PART}`, "gi"),
    "<home>",
  );
  out = out.replace(new RegExp(`(?<![\\w.~>-])/root${PATH_END}`, "g"), "<home>");
  out = out.replace(new RegExp(`(?<![\\w])[A-Za-z]:(\\\\\\\\|\\\\|/)Users\\1${PATH_PART}`, "gi"), "<home>");
  // A WSL home seen from Windows: \\wsl$\<distro>\home\<name> or \\wsl.localhost\<distro>\home\<name>.
  out = out.replace(
    new RegExp(`\\\\{1,2}wsl(?:\\$|\\.localhost)\\\\{1,2}${PATH_PART}\\\\{1,2}home\\\\{1,2}${PATH_PART}`, "gi"),
    "<home>",
  );
  return out;
}

/**
 * First folders of absolute POSIX paths that hold models and data (a system path such as /usr/lib, /etc or /dev
 * says nothing about the machine's owner and stays, and so does a URL path such as /v1/chat/completions).
 */
const DATA_ROOTS =
  "opt|mnt|media|srv|data|data\\d*|var|tmp|scratch|models|workspace|work|nfs|storage|lustre|gpfs|run/media|Volumes|" +
  "private|net|shared|share|export|datasets?|ssd|nvme|disk\\d*|content|kaggle|cache|weights|llm|ai|projects?|" +
  // Cluster file systems and homes (TACC's /home1, NERSC's /global, OSC's /fs, Juelich's /p).
  "scratch\\d+|work\\d+|cluster|home\\d+|global|fs|p|beegfs|cephfs|pfs|dss|hpc|people|fsx|raid|weka|vast|efs";
/** File endings of model and data files: a path ending in one is a machine path whatever its first folder. */
const DATA_EXTENSIONS = "gguf|safetensors|bin|pt|pth|onnx|ckpt|jsonl|parquet|npy|npz|h5|arrow|tar|zip|jinja";
const POSIX_DATA_PATH = new RegExp(
  `(?<![\\w.~>:/-])(?:/(?:${DATA_ROOTS})(?:/${PATH_PART})+|(?:/${PATH_PART}){2,}\\.(?:${DATA_EXTENSIONS}))${PATH_END}`,
  "g",
);
/**
 * A drive path outside the system folders (C:\\Program Files, C:\\Windows, C:\\ProgramData stay), with single or
 * JSON-escaped double backslashes or forward slashes.
 */
const WINDOWS_DATA_PATH = new RegExp(
  String.raw`(?<![\w])[A-Za-z]:(?:\\{1,2}|/)(?!Program Files\b|Windows\b|ProgramData\b)` +
    String.raw`${PATH_PART}(?:(?:\\{1,2}|/)${PATH_PART})*`,
  "gi",
);
/** A file URL (file:///opt/models/x.gguf): its path. */
const FILE_URL = /\bfile:\/\/(\/[^\s"'<>]+)/gi;
/**
 * A UNC path (\\\\server\\share\\...), but not a terminal escape whose backslash Markdown doubled (an ESC sequence in
 * a GPU name, written `\u001b` by runtime's escapeTerminalText): no server is named after one of the code points
 * that function writes.
 */
const UNC_PATH = new RegExp(
  String.raw`(?<![\w\\])\\{2}(?:\\{2})?(?!u(?:00[01][0-9a-f]|007f|00[89][0-9a-f]|061c|200[ef]|202[89a-e]|206[6-9]))` +
    String.raw`${PATH_PART}(?:\\{1,2}${PATH_PART})+`,
  "g",
);

/**
 * An absolute path as a published text may show it: the placeholder and the path's last part, unless the path is a
 * root and one folder (/scratch/bob, /work/bob): that folder is a user or a project.
 */
function abstractPath(path: string): string {
  const separator = path.includes("\\") && !path.includes("/") ? (path.includes("\\\\") ? "\\\\" : "\\") : "/";
  const parts = path.split(/[\\/]+/).filter((part) => part !== "" && !/^[A-Za-z]:$/.test(part));
  const last = parts.at(-1);
  if (last === undefined || (parts.length <= 2 && !last.includes("."))) return ABSOLUTE_PATH_PLACEHOLDER;
  return `${ABSOLUTE_PATH_PLACEHOLDER}${separator}${last}`;
}

function redactDataPaths(text: string): string {
  return text.replace(FILE_URL, (_m, path: string) => `file://${abstractPath(path)}`)
    .replace(POSIX_DATA_PATH, abstractPath).replace(WINDOWS_DATA_PATH, abstractPath).replace(UNC_PATH, abstractPath);
}

/** E-mail addresses (not a scoped package, not a file like icon@2x.png; a placeholder's ">" cannot be in one). */
const EMAIL =
  /(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.(?!(?:png|jpe?g|gif|svg|webp|gguf|json|txt|md)\b)[A-Za-z]{2,24}\b/g;
/** MAC addresses, colon or dash separated: 48-bit, EUI-64 and InfiniBand's 20-byte hardware address. */
const MAC = /(?<![0-9A-Fa-f:-])(?:[0-9A-Fa-f]{2}([:-]))(?:[0-9A-Fa-f]{2}\1){4,18}[0-9A-Fa-f]{2}(?![0-9A-Fa-f:-])/g;
/** NVIDIA GPU and MIG instance UUIDs. */
const GPU_UUID =
  /\b(?:MIG-)?(?:GPU|MIG)-[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(?:\/\d+\/\d+)?\b/g;

function redactIdentifiers(text: string): string {
  const out = text.replace(GPU_UUID, "<gpu-uuid>").replace(EMAIL, "<email>").replace(MAC, "<mac>");
  return redactMachineIds(redactMoreMacs(out));
}

const IPV4 = /(?<![\w.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?!\.?\d|\w)/g;
// Unique local (fc00::/7: first hextet fc00-fdff) and link-local (fe80::/10: fe80-febf) addresses, with a zone.
const IPV6_PRIVATE =
  /(?<![0-9A-Za-z:])((?:f[cd][0-9a-f]{2}|fe[89ab][0-9a-f])(?::[0-9a-f]{0,4}){2,7}(?:%[0-9A-Za-z_.-]+)?)(?![0-9A-Za-z:])/gi;

/** RFC 1918, link-local (169.254/16) and shared address space (100.64.0.0/10: CGNAT, Tailscale). */
function isPrivateIpv4(octets: number[]): boolean {
  const [a, b] = octets as [number, number];
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) ||
    (a === 100 && b >= 64 && b <= 127);
}

function redactAddresses(text: string, context: SanitizeContext): string {
  const numbers = context.addressNumbers ?? new Map<string, number>();
  const placeholder = (address: string) => {
    const key = address.toLowerCase();
    let n = numbers.get(key);
    if (n === undefined) {
      n = numbers.size + 1;
      numbers.set(key, n);
    }
    return `<private-ip-${n}>`;
  };
  let out = redactAddressNotations(text, (octets) => isPrivateIpv4(octets) ? placeholder(octets.join(".")) : null);
  out = out.replace(IPV4, (m, ...parts: string[]) => {
    const octets = parts.slice(0, 4).map(Number);
    if (octets.some((o) => o > 255)) return m;
    return isPrivateIpv4(octets) ? placeholder(m) : m;
  });
  out = out.replace(IPV6_PRIVATE, (m: string) => (m.includes("::") || m.split(":").length === 8 ? placeholder(m) : m));
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function redactName(text: string, name: string | null | undefined, placeholder: string): string {
  if (!name || GENERIC_NAMES.has(name.toLowerCase())) return text;
  const word = escapeRegExp(name);
  if (name.length >= 3) return text.replace(new RegExp(`(?<![\\w-])${word}(?![\\w-])`, "gi"), placeholder);
  // A name of one or two characters is a common word ("ai", "gx"): replaced only where it stands as a host or a
  // user: after user@ or //, before :~ or $ (a prompt), before a domain (.local, .lan, .home), or after
  // "host(name)"/"user(name)" and a separator.
  const contexts = [
    new RegExp(`(?<=[@]|//)${word}(?![\\w-])`, "gi"),
    new RegExp(`(?<![\\w-])${word}(?=:~|[:]?\\$ |\\.(?:local|lan|home|internal|localdomain)\\b|@)`, "gi"),
    new RegExp(`(?<=\\[)${word}(?=\\]\\s?[$#])`, "gi"),
    new RegExp(`(?<=\\b(?:host|hostname|user|username|login)["']?\\s*[:=]\\s*["']?)${word}(?![\\w-])`, "gi"),
  ];
  return contexts.reduce((out, pattern) => out.replace(pattern, placeholder), text);
}

/**
 * Replaces home folders, user and host names, private addresses and secrets in a text. Idempotent: a replacement
 * can give a neighbour the context another rule looks for ("10.0.0.1--api-key x" becomes "<private-ip-1>--api-key
 * x", whose flag now stands alone), so the passes repeat until nothing changes (placeholders match no rule, so
 * this ends after a pass or two).
 */
export function sanitizeText(text: string, context: SanitizeContext = {}): string {
  const known = context.memo?.get(text);
  if (known !== undefined) return known;
  const out = sanitizeFixpoint(text, context);
  if (context.memo !== undefined && context.memo.size < MEMO_ENTRIES && text.length <= MEMO_CHARS) {
    context.memo.set(text, out);
  }
  return out;
}

/** sanitizeOnce until nothing changes (at most 9 passes). */
function sanitizeFixpoint(text: string, context: SanitizeContext): string {
  let out = sanitizeOnce(text, context);
  for (let pass = 0; pass < 8; pass++) {
    const next = sanitizeOnce(out, context);
    if (next === out) return out;
    out = next;
  }
  return out;
}

function sanitizeOnce(text: string, context: SanitizeContext): string {
  let out = redactPercentEncoded(text, (decoded) => sanitizeOnce(decoded, context));
  out = redactEscapedPaths(out, (decoded) => sanitizeOnce(decoded, context));
  out = redactSecrets(out, context);
  out = redactHomes(out, context);
  out = redactShortHomes(out);
  out = redactDataPaths(out);
  out = redactIdentifiers(out);
  out = redactAddresses(out, context);
  out = redactHostNames(out);
  const host = context.hostname?.trim();
  if (host) {
    out = redactName(out, host, "<host>");
    const short = host.split(".")[0];
    if (short && short !== host) out = redactName(out, short, "<host>");
  }
  out = redactName(out, context.username?.trim(), "<user>");
  return out;
}

/**
 * Sanitizes every string (and key) of a JSON value; the value of a key that names a secret (api_key, token,
 * password, ...) becomes "<secret>" whatever it holds. Returns a new value; the input is not changed.
 */
export function sanitizeJson(value: unknown, context: SanitizeContext = {}): unknown {
  if (typeof value === "string") return sanitizeText(value, context);
  if (Array.isArray(value)) {
    // An argv array: the element after a secret flag (["--api-key", "x"]) is the secret.
    return value.map((item, i) => {
      const previous = value[i - 1];
      const afterFlag = typeof previous === "string" && /^--?[A-Za-z]/.test(previous) && !previous.includes("=") &&
        isSecretName(previous);
      return afterFlag && typeof item === "string" && item !== "" ? SECRET : sanitizeJson(item, context);
    });
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const secret = isSecretName(key) && (typeof item === "string" || typeof item === "number") && item !== "";
      out[sanitizeText(key, context)] = secret ? SECRET : sanitizeJson(item, context);
    }
    return out;
  }
  return value;
}

/** A text and JSON sanitizer for one run: the same private address gets the same placeholder everywhere. */
export function createSanitizer(context: SanitizeContext): Sanitizer {
  const shared: SanitizeContext = {
    ...context,
    addressNumbers: context.addressNumbers ?? new Map(),
    memo: context.memo ?? new Map(),
  };
  return { text: (text) => sanitizeText(text, shared), json: (value) => sanitizeJson(value, shared) };
}

/**
 * The sanitizer of this machine: its user name, host name and home folder as the runtime reports them (one that
 * cannot be read is left out). Every command that writes or prints engine text uses this one.
 */
export function machineSanitizer(): Sanitizer {
  const username = sys.username();
  const hostname = sys.hostname();
  const home = sys.homeDir();
  return createSanitizer({
    username: username.ok ? username.value : null,
    hostname: hostname.ok ? hostname.value : null,
    homeDir: home.ok ? home.value : null,
  });
}

/** What an absolute path becomes in a published command line; the path's last part follows it ("<abs-path>/c"). */
export const ABSOLUTE_PATH_PLACEHOLDER = "<abs-path>";

// An absolute path starting an argument or following whitespace, "=" or ",": POSIX (/...), Windows drive
// (C:\... or C:/...) or UNC (\\server\share). A ":" before the slash is not a start, so URLs
// (http://127.0.0.1:8080/v1) stay as they are.
const ABSOLUTE_PATH = /(^|[\s=,])(\/[^\s,;"'`]*|[A-Za-z]:[\\/][^\s,;"'`]*|\\\\[^\s,;"'`]+)/g;
/** Stands in for the placeholder while an argument is quoted: only characters a shell leaves alone. */
const PLACEHOLDER_SENTINEL = "@@strata-abs-path@@";

function redactAbsolutePaths(arg: string, placeholder: string): string {
  return arg.replace(ABSOLUTE_PATH, (_m, before: string, path: string) => {
    const last = path.split(/[\\/]+/).filter((part) => part !== "" && !/^[A-Za-z]:$/.test(part)).at(-1);
    return `${before}${placeholder}${last === undefined ? "" : `/${last}`}`;
  });
}

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command line of a run as a result may publish it: each argument with its absolute paths replaced by
 * "<abs-path>/<last part>" (as an argument, a --flag=value or inside a value), then shell-quoted where needed, and
 * joined with spaces. Relative paths and URLs stay. Run the result through the text sanitizer as well (user and
 * host names, secrets).
 */
export function sanitizeCommand(argv: readonly string[]): string {
  return argv.map((arg) =>
    shellQuote(redactAbsolutePaths(arg, PLACEHOLDER_SENTINEL)).replaceAll(
      PLACEHOLDER_SENTINEL,
      ABSOLUTE_PATH_PLACEHOLDER,
    )
  ).join(" ");
}
