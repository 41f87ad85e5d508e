/**
 * The floor plan of the project as data, and the readers the house rules need: every source file, its code with
 * comments and string contents blanked out, the relative imports it makes, and the checks themselves as pure
 * functions (so each rule is also tested against a house built to break it).
 */
import { readdir, readFile } from "node:fs/promises";
import { join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The floors, lowest first: a part may import only parts on lower floors (data flows runner -> score -> report ->
 * cli; load beside runner). `mod.ts` is the entry; benchmarks/ and release/ are scripts above it.
 */
export const FLOORS: Readonly<Record<string, number>> = {
  contract: 0,
  runtime: 0,
  client: 1,
  fixtures: 1,
  score: 1,
  mock: 1,
  probe: 1,
  site: 1,
  sanitize: 1,
  report: 2,
  engine: 2,
  runner: 3,
  load: 3,
  review: 3,
  cli: 4,
  "mod.ts": 5,
  benchmarks: 5,
  release: 6,
};

/** Folders that hold no source of the house (tests, data, installed packages, build output). */
const NOT_SOURCE = new Set([
  "tests",
  "node_modules",
  ".git",
  ".ci",
  "dist",
  ".bench",
  "bench-results",
  "profiles",
  "standard-v1",
]);

/** One source file: its path from the repository root and its text. */
export interface SourceFile {
  path: string;
  text: string;
}

/** Every .ts/.js source file of the house (tests and data excluded), path-sorted. */
export async function sourceFiles(root = REPO): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!NOT_SOURCE.has(entry.name) && !entry.name.startsWith(".")) await walk(path);
      } else if (/\.(ts|js)$/.test(entry.name)) {
        out.push({ path, text: await readFile(join(root, path), "utf8") });
      }
    }
  };
  await walk("");
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** The part a file belongs to: its top-level folder, or its own name at the top level (mod.ts). */
export function partOf(path: string): string {
  const slash = path.indexOf("/");
  return slash === -1 ? path : path.slice(0, slash);
}

/**
 * `text` with every comment and the contents of every string, template and regular-expression literal replaced by
 * spaces (newlines kept), so that what remains is code. Template substitutions (`${...}`) stay code.
 * @throws {SyntaxError} on an unterminated comment or literal (the scanner cannot read the file).
 */
export function codeOnly(text: string): string {
  const out = text.split("");
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== "\n") out[i] = " ";
  };
  /** Characters after which a "/" starts a regular expression rather than a division. */
  const regexAfter = /[(,=:[!&|?{};+\-*%<>~^]$/;
  const templateDepth: number[] = []; // brace depth at which each open template's substitution started
  let braces = 0;
  let i = 0;
  let lastCode = "";
  const readQuoted = (quote: string): void => {
    const start = i++;
    while (i < text.length && text[i] !== quote) {
      if (text[i] === "\\") i++;
      else if (text[i] === "\n" && quote !== "`") throw new SyntaxError(`unterminated string at ${start}`);
      i++;
    }
    if (i >= text.length) throw new SyntaxError(`unterminated string at ${start}`);
    blank(start + 1, i);
    i++;
  };
  const readTemplate = (): void => {
    // From just after a backtick or a closing "}" of a substitution, up to the closing backtick or the next "${".
    const start = i;
    while (i < text.length) {
      if (text[i] === "\\") i += 2;
      else if (text[i] === "`") {
        blank(start, i);
        i++;
        return;
      } else if (text[i] === "$" && text[i + 1] === "{") {
        blank(start, i);
        i += 2;
        templateDepth.push(braces);
        braces++;
        return;
      } else i++;
    }
    throw new SyntaxError(`unterminated template at ${start}`);
  };
  while (i < text.length) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      blank(i, end === -1 ? text.length : end);
      i = end === -1 ? text.length : end;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end === -1) throw new SyntaxError(`unterminated comment at ${i}`);
      blank(i, end + 2);
      i = end + 2;
    } else if (c === '"' || c === "'") {
      readQuoted(c);
      lastCode = "x";
    } else if (c === "`") {
      i++;
      readTemplate();
      lastCode = "x";
    } else if (
      c === "/" && (lastCode === "" || regexAfter.test(lastCode) || /\b(return|typeof|case)$/.test(
        text.slice(Math.max(0, i - 8), i).trimEnd(),
      ))
    ) {
      const start = i++;
      let inClass = false;
      while (i < text.length && (text[i] !== "/" || inClass)) {
        if (text[i] === "\\") i++;
        else if (text[i] === "[") inClass = true;
        else if (text[i] === "]") inClass = false;
        else if (text[i] === "\n") throw new SyntaxError(`unterminated regular expression at ${start}`);
        i++;
      }
      blank(start + 1, i);
      i++;
      lastCode = "x";
    } else {
      if (c === "{") braces++;
      if (c === "}") {
        braces--;
        if (templateDepth.length > 0 && templateDepth[templateDepth.length - 1] === braces) {
          templateDepth.pop();
          i++;
          readTemplate();
          lastCode = "x";
          continue;
        }
      }
      if (!/\s/.test(c)) lastCode = c;
      i++;
    }
  }
  return out.join("");
}

/** A relative import of a source file: the file it names (from the repository root) and its line. */
export interface SourceImport {
  from: string;
  to: string;
  line: number;
}

/** Every relative import (static, re-export or dynamic) the code of `file` makes; none from comments or strings. */
export function importsOf(file: SourceFile): SourceImport[] {
  const code = codeOnly(file.text);
  const out: SourceImport[] = [];
  const pattern = /\b(?:from|import)\s*\(?\s*(["'])(\.{1,2}\/[^"']+)\1/g;
  for (const match of file.text.matchAll(pattern)) {
    const at = match.index ?? 0;
    // The keyword must be code, and the specifier a string the code opens (not text inside another literal).
    if (code.slice(at, at + 4) !== file.text.slice(at, at + 4)) continue;
    const dir = file.path.includes("/") ? file.path.slice(0, file.path.lastIndexOf("/")) : "";
    const to = normalize(join(dir, match[2] as string)).replaceAll("\\", "/");
    out.push({ from: file.path, to: relative(".", to).replaceAll("\\", "/"), line: lineOf(file.text, at) });
  }
  return out;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** A broken rule: the file (with line) and what it did. */
export interface Violation {
  at: string;
  problem: string;
}

/** Names of the runtime's globals that only runtime/ (and the entry) may use. */
const RUNTIME_GLOBALS = /(?<![.\w$#])(Deno|Bun|process|console)(?![\w$])(?!\s*\??:(?!:))/g;
const GLOBAL_THIS_RUNTIME = /\bglobalThis\b[^;\n]*\b(Deno|Bun|process|console)\b/g;

/** Rule: only runtime/ and mod.ts name Deno, Bun, process or console (in code, not in comments or strings). */
export function runtimeNameViolations(files: readonly SourceFile[]): Violation[] {
  const out: Violation[] = [];
  for (const file of files) {
    if (partOf(file.path) === "runtime" || file.path === "mod.ts") continue;
    const code = codeOnly(file.text);
    for (const pattern of [RUNTIME_GLOBALS, GLOBAL_THIS_RUNTIME]) {
      for (const match of code.matchAll(pattern)) {
        out.push({
          at: `${file.path}:${lineOf(code, match.index ?? 0)}`,
          problem: `names ${match[1]}; take it from runtime/mod.ts or as a parameter`,
        });
      }
    }
  }
  return out;
}

/** Rule: an import into another part goes through that part's mod.ts (benchmarks, like tests, may reach in). */
export function surfaceViolations(imports: readonly SourceImport[], parts: ReadonlySet<string>): Violation[] {
  return imports.filter((i) => {
    const from = partOf(i.from), to = partOf(i.to);
    return from !== to && from !== "benchmarks" && parts.has(to) && i.to !== `${to}/mod.ts`;
  }).map((i) => ({
    at: `${i.from}:${i.line}`,
    problem: `imports ${i.to}, inside ${partOf(i.to)}/; import ${partOf(i.to)}/mod.ts (export it there)`,
  }));
}

/** Rule: every arrow points down the floors; a part absent from FLOORS is a violation too. */
export function floorViolations(
  imports: readonly SourceImport[],
  floors: Readonly<Record<string, number>> = FLOORS,
): Violation[] {
  const out: Violation[] = [];
  for (const i of imports) {
    const from = partOf(i.from), to = partOf(i.to);
    if (from === to) continue;
    // Benchmarks reuse the tests' fixture builders (both are harnesses around the house, not rooms of it).
    if (from === "benchmarks" && to === "tests") continue;
    const a = floors[from], b = floors[to];
    if (a === undefined || b === undefined) {
      out.push({ at: `${i.from}:${i.line}`, problem: `${a === undefined ? from : to}/ has no floor in FLOORS` });
    } else if (a <= b) {
      out.push({
        at: `${i.from}:${i.line}`,
        problem: `${i.from} -> ${i.to} runs ${a === b ? "sideways" : "back up"}: ${from}/ (floor ${a}) may import ` +
          `only lower floors, ${to}/ is floor ${b}`,
      });
    }
  }
  return out;
}

/** Rule: no file imports itself through a chain of others. Each circle is named once, by its files in order. */
export function circleViolations(imports: readonly SourceImport[]): Violation[] {
  const edges = new Map<string, string[]>();
  for (const i of imports) edges.set(i.from, [...(edges.get(i.from) ?? []), i.to]);
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const out: Violation[] = [];
  const seen = new Set<string>();
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === "open") {
        const circle = [...stack.slice(stack.indexOf(next)), next];
        const key = [...circle.slice(0, -1)].sort().join(" ");
        if (!seen.has(key)) {
          seen.add(key);
          out.push({ at: next, problem: `import circle: ${circle.join(" -> ")}` });
        }
      } else if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...edges.keys()].sort()) if (state.get(file) === undefined) visit(file);
  return out;
}

/** Rule: the scripted engine and the client share no code: each imports only contract/ and runtime/. */
export function mockClientViolations(imports: readonly SourceImport[]): Violation[] {
  return imports.filter((i) => {
    const from = partOf(i.from), to = partOf(i.to);
    return (from === "mock" || from === "client") && from !== to && to !== "contract" && to !== "runtime";
  }).map((i) => ({
    at: `${i.from}:${i.line}`,
    problem: `${partOf(i.from)}/ imports ${i.to}; the scripted engine and the client may share only contract/ and ` +
      "runtime/, so that a bug in one cannot hide in the other",
  }));
}

/**
 * Rule: tests/unit mirrors the source folders: tests/unit/<part>/<name>_test.ts tests <part>/<name>.ts (or its
 * private `_<name>.ts`); a longer name adds an aspect after the file's name (`behaviour_faults_test.ts`). A file of
 * a part's wing, <part>/<wing>/<name>.ts, is tested as <wing>_<name>, <name> or the wing as a whole (<wing>).
 */
export function mirrorViolations(testFiles: readonly string[], sources: readonly string[]): Violation[] {
  const bySource = new Set(sources.flatMap((p) => {
    const [part, ...rest] = p.replace(/\.(ts|js)$/, "").split("/").map((s) => s.replace(/^_/, ""));
    if (rest.length < 2) return [`${part}/${rest.join("/")}`];
    return [`${part}/${rest.join("_")}`, `${part}/${rest.at(-1)}`, `${part}/${rest[0]}`];
  }));
  const out: Violation[] = [];
  for (const test of testFiles) {
    const match = /^tests\/unit\/([^/]+)\/([^/]+)_test\.ts$/.exec(test);
    if (!match) {
      if (/_test\.ts$/.test(test)) out.push({ at: test, problem: "a unit test outside tests/unit/<part>/" });
      continue;
    }
    const [, part, name] = match as unknown as [string, string, string];
    const words = name.split("_");
    const found = words.some((_, n) => bySource.has(`${part}/${words.slice(0, n + 1).join("_")}`));
    if (!found) out.push({ at: test, problem: `no source file ${part}/${name}.ts (or a prefix of it) to mirror` });
  }
  return out;
}

/**
 * Rule: no product file is longer than `maxLines` lines (a file that grows past it is split by responsibility).
 * `allowed` names today's known offenders with the lines they had: they may not grow, and an entry whose file is
 * now within the limit (or gone) is reported too, so the list only shrinks.
 */
export function sizeViolations(
  files: readonly SourceFile[],
  maxLines: number,
  allowed: Readonly<Record<string, number>> = {},
): Violation[] {
  const out: Violation[] = [];
  const lengths = new Map(files.filter((f) => isProduct(f.path)).map((f) => [f.path, lineCount(f.text)]));
  for (const [path, lines] of lengths) {
    const cap = allowed[path] ?? maxLines;
    if (lines > cap) {
      out.push({
        at: path,
        problem: `${lines} lines, over ${maxLines}${cap === maxLines ? "" : ` (and over the ${cap} it had)`}: ` +
          "split it by responsibility",
      });
    }
  }
  for (const path of Object.keys(allowed)) {
    if ((lengths.get(path) ?? 0) <= maxLines) {
      out.push({ at: path, problem: `within ${maxLines} lines now (or gone): remove it from the size allow-list` });
    }
  }
  return out;
}

function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Product code: .ts, .js and .mjs outside tests/, benchmarks/, bin/ and the frozen bundle. */
export function isProduct(path: string): boolean {
  return /\.(ts|js|mjs)$/.test(path) && !/^(tests|benchmarks|bin)\//.test(path) &&
    !path.startsWith("fixtures/standard-v1/");
}

/** The names a file exports: its declarations, its re-exports, and (through `export *`) those of the files named. */
export function exportedNames(file: SourceFile, byPath: ReadonlyMap<string, SourceFile>, seen = new Set<string>()) {
  const names = new Set<string>();
  if (seen.has(file.path)) return names;
  seen.add(file.path);
  const code = codeOnly(file.text);
  for (
    const m of code.matchAll(
      /\bexport\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([\w$]+)/g,
    )
  ) {
    names.add(m[1] as string);
  }
  for (const m of code.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const item of (m[1] as string).split(",")) {
      const name = item.replace(/^\s*type\s+/, "").split(/\s+as\s+/).at(-1)!.trim();
      if (name !== "") names.add(name);
    }
  }
  const dir = file.path.includes("/") ? file.path.slice(0, file.path.lastIndexOf("/")) : "";
  for (const m of file.text.matchAll(/^export\s+(?:type\s+)?\*\s+from\s+["'](\.{1,2}\/[^"']+)["']/gm)) {
    const target = byPath.get(normalize(join(dir, m[1] as string)).replaceAll("\\", "/"));
    if (target !== undefined) { for (const n of exportedNames(target, byPath, seen)) names.add(n); }
  }
  return names;
}

/**
 * Rule: a part's mod.ts exports only what another part (cli/, mod.ts, release/ and benchmarks/ included) uses: a
 * name counts as used where a file outside the part imports that mod.ts and names it in its code. Tests do not
 * count as users (they may import a private file). `allowed` names today's known offenders, part -> names; an
 * allowed name that is used, or no longer exported, is reported too, so the list only shrinks.
 */
export function faceViolations(
  files: readonly SourceFile[],
  allowed: Readonly<Record<string, readonly string[]>> = {},
): Violation[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const imports = files.flatMap(importsOf);
  const out: Violation[] = [];
  for (const face of files.filter((f) => /^[^/]+\/mod\.ts$/.test(f.path))) {
    const part = partOf(face.path);
    const users = [
      ...new Set(
        imports.filter((i) => i.to === face.path && partOf(i.from) !== part && partOf(i.from) !== "tests").map((i) =>
          i.from
        ),
      ),
    ]
      .map((path) => codeOnly(byPath.get(path)!.text));
    const exported = exportedNames(face, byPath);
    const allowedHere = new Set(allowed[part] ?? []);
    for (const name of [...exported].sort()) {
      const word = new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`);
      const used = users.some((code) => word.test(code));
      if (!used && !allowedHere.has(name)) {
        out.push({
          at: face.path,
          problem: `exports ${name}, which no other part uses: stop exporting it (keep it private, or delete it)`,
        });
      } else if (used && allowedHere.has(name)) {
        out.push({ at: face.path, problem: `${name} is used now: remove it from the face rule's allow-list` });
      }
    }
    for (const name of allowedHere) {
      if (!exported.has(name)) {
        out.push({
          at: face.path,
          problem: `${name} is no longer exported: remove it from the face rule's allow-list`,
        });
      }
    }
  }
  return out;
}
