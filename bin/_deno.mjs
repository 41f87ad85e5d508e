// The pinned Deno of this package and the commands deno.json's tasks give it: shared by the `strata-bench`
// launcher (bin/strata-bench.mjs) and the set-up runner (bin/task.mjs). Plain JavaScript that Node (>= 18) runs
// as it is: npm starts it, before any TypeScript can run.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's root folder (the one holding deno.json and mod.ts). */
export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");

const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8"));

/**
 * The packages package.json pins that are missing, or at another version, in `modules` (a node_modules folder):
 * `dependencies` (what a command needs), and with `development` also `devDependencies` (what the tests need).
 */
function missingIn(modules, development) {
  const wanted = { ...manifest.dependencies, ...(development ? manifest.devDependencies : {}) };
  const out = [];
  for (const [name, version] of Object.entries(wanted)) {
    let found = null;
    try {
      found = JSON.parse(readFileSync(join(modules, name, "package.json"), "utf8")).version;
    } catch {
      found = null;
    }
    if (found !== version) out.push(`${name}@${version}${found === null ? "" : ` (found ${found})`}`);
  }
  return out;
}

/**
 * The node_modules folder that holds every pinned package: the package's own (a checkout, `npm install -g`), else
 * the folder npm hoisted them into when the package was installed into a project (`npm install strata-bench.tgz`:
 * the project's node_modules, which holds this package too). Deno reads them through one folder, so a layout that
 * splits them between the two finds none.
 */
export function modulesDir(development = false) {
  const own = join(PACKAGE_DIR, "node_modules");
  const parts = PACKAGE_DIR.split(sep);
  const above = parts.map((part, i) => part === "node_modules" ? parts.slice(0, i + 1).join(sep) : null)
    .filter((dir) => dir !== null).reverse();
  return [own, ...above].find((dir) => missingIn(dir, development).length === 0) ?? own;
}

/** The pinned packages missing from modulesDir(), as `name@version`: empty when the package can run. */
export function missingPackages(development) {
  return missingIn(modulesDir(development), development);
}

/**
 * Installs the pinned packages with `npm ci` when some are missing and this is a checkout (it has
 * package-lock.json); returns false when they are missing and cannot be installed here.
 */
export function ensureInstalled(log, development = false) {
  const missing = missingPackages(development);
  if (missing.length === 0) return true;
  if (!existsSync(join(PACKAGE_DIR, "package-lock.json"))) {
    log(`strata-bench: the pinned packages are missing (${missing.join(", ")}); reinstall strata-bench with npm`);
    return false;
  }
  const shown = missing.length > 3
    ? `${missing.slice(0, 3).join(", ")} and ${missing.length - 3} more`
    : missing.join(", ");
  log(`strata-bench: installing the pinned packages (npm ci; missing: ${shown}) ...`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const done = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: PACKAGE_DIR, stdio: ["ignore", 2, 2] });
  if (done.status !== 0) {
    log("strata-bench: npm ci failed; run it yourself in the package folder to see why");
    return false;
  }
  return missingPackages(development).length === 0;
}

/** The pinned Deno executable (the deno npm package's own resolver: its binary, or the platform package's). */
export function denoExecutable() {
  const require = createRequire(join(PACKAGE_DIR, "package.json"));
  return require("deno/install_api.cjs").runInstall();
}

/**
 * The folder Deno runs the sources from. Deno (like Node) strips no TypeScript types in files under a node_modules
 * folder, which is where `npm install -g` of a tarball puts this package; there the sources (everything but
 * node_modules, a few MB) are copied once per version and commit into the cache folder, beside a link to the
 * package's node_modules, and run from that copy. A checkout (or `npm install -g <checkout>`, a link to it) runs
 * in place.
 */
export function sourceDir() {
  if (!PACKAGE_DIR.split(sep).includes("node_modules")) return PACKAGE_DIR;
  const commit = existsSync(join(PACKAGE_DIR, "COMMIT"))
    ? readFileSync(join(PACKAGE_DIR, "COMMIT"), "utf8").trim().slice(0, 12)
    : "unknown";
  const cache = process.env.XDG_CACHE_HOME || (process.platform === "win32" ? process.env.LOCALAPPDATA : null) ||
    join(homedir(), ".cache");
  // One copy per install place too: each links to its own node_modules, and outlives neither.
  const modules = modulesDir();
  const place = createHash("sha256").update(modules).digest("hex").slice(0, 8);
  const target = join(cache, "strata-bench", `source-${manifest.version}-${commit}-${place}`);
  if (existsSync(join(target, "mod.ts"))) return target;
  const staging = `${target}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const own = join(PACKAGE_DIR, "node_modules");
  cpSync(PACKAGE_DIR, staging, { recursive: true, filter: (path) => path !== own });
  symlinkSync(modules, join(staging, "node_modules"), "junction");
  try {
    renameSync(staging, target);
  } catch {
    // another start made it first
    rmSync(staging, { recursive: true, force: true });
  }
  return target;
}

/** deno.json, parsed. */
function denoConfig() {
  return JSON.parse(readFileSync(join(PACKAGE_DIR, "deno.json"), "utf8"));
}

/** deno.json's tasks. */
export function denoTasks() {
  return denoConfig().tasks;
}

/**
 * The argv (after the executable) of a `deno run` task, made runnable from any folder: `--config` names this
 * package's deno.json (so `-P=<set>` is read from it), `$HOME` is expanded, and the entry file is this package's.
 * Relative --allow-write paths stay relative to the current folder, where results belong. Deno reads the paths
 * inside a set relative to deno.json, and an --allow-write flag replaces the set's list; so when `outputsInCwd`
 * and the task has no --allow-write of its own, the set's write list is given as a flag, relative to the current
 * folder (results, the site, the approved manifest are the person's, not the package's). `extraWrites` (absolute
 * folders the person named with --out) are added to the task's write list, so `--out DIR` works anywhere the
 * person may write, and nowhere else. `$INIT_CWD` in a task is the current folder, as deno task would make it.
 * @throws {Error} when the task is missing or is not one `deno run` command.
 */
export function runTaskArgv(name, home, outputsInCwd = true, root = PACKAGE_DIR, extraWrites = []) {
  const task = denoTasks()[name];
  if (typeof task !== "string" || task.includes("&&")) throw new Error(`deno.json has no simple task "${name}"`);
  const cwd = process.cwd();
  const words = task.trim().split(/\s+/).map((w) =>
    w.replaceAll("$HOME", home).replaceAll("${HOME}", home).replaceAll("$INIT_CWD", cwd)
  );
  if (words[1] !== "run") throw new Error(`task "${name}" is not a deno run command: ${task}`);
  const entry = words.findIndex((w, i) => i > 1 && !w.startsWith("-"));
  if (entry < 0) throw new Error(`task "${name}" names no file: ${task}`);
  const argv = words.slice(1);
  argv[entry - 1] = join(root, words[entry]);
  const set = words.find((w) => w.startsWith("-P="))?.slice(3);
  const writes = set === undefined ? undefined : denoConfig().permissions?.[set]?.write;
  if (outputsInCwd && Array.isArray(writes) && !words.some((w) => w.startsWith("--allow-write"))) {
    argv.splice(1, 0, `--allow-write=${writes.join(",")}`);
  }
  if (extraWrites.length > 0) {
    const file = argv.indexOf(join(root, words[entry]));
    const at = argv.findIndex((w, i) => i < file && w.startsWith("--allow-write="));
    if (at >= 0) argv[at] = `${argv[at]},${extraWrites.join(",")}`;
    else argv.splice(1, 0, `--allow-write=${[...(Array.isArray(writes) ? writes : []), ...extraWrites].join(",")}`);
  }
  argv.splice(1, 0, "--config", join(root, "deno.json"));
  return argv;
}

const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * cli/exit_codes.ts's "interrupted" (4): the code this process ends with when the child was ended by a signal it
 * did not handle (a shell's 128 + N is no documented code).
 */
export const EXIT_INTERRUPTED = 4;

/** How often the parent is checked (a parent killed even by SIGKILL changes this process's parent id). */
const PARENT_POLL_MS = 250;
/** How long a child told to stop because the parent died may take before it is killed. */
const PARENT_GONE_GRACE_MS = 15_000;

/** A process's name, parent and start time from /proc (Linux); null where there is none (another OS, or gone). */
function procStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = text.lastIndexOf(")");
    const fields = text.slice(close + 2).split(" ");
    return { name: text.slice(text.indexOf("(") + 1, close), ppid: Number(fields[1]), start: fields[19] };
  } catch {
    return null;
  }
}

/**
 * The processes whose death means the person's command is gone: the parent, and through any shells above it the
 * first process that is no shell (npx runs `sh -c strata-bench`: killing npx leaves that shell, not this process's
 * parent, orphaned). Each is kept with its start time, so a reused process id is not taken for it.
 */
export function watchedAncestors(pid = process.ppid) {
  const chain = [];
  for (let depth = 0; depth < 4 && pid > 1; depth++) {
    const stat = procStat(pid);
    if (stat === null) break;
    chain.push({ pid, start: stat.start });
    if (!/^(?:sh|bash|dash|ash|zsh|ksh|mksh)$/.test(stat.name)) break;
    pid = stat.ppid;
  }
  return chain;
}

/** Whether a watched process has ended (its id gone or now another process's). */
function ended(ancestor) {
  const stat = procStat(ancestor.pid);
  return stat === null || stat.start !== ancestor.start;
}

/**
 * Runs `executable argv` with this terminal, passes SIGINT, SIGTERM and SIGHUP on to it (a terminal's Ctrl-C reaches
 * both; the child's handlers take a second one as the same request), waits for it, and ends this process the way
 * the child ended: its exit code, or EXIT_INTERRUPTED when a signal ended it. When this process's own parent dies,
 * or on Linux the first process that is no shell above it (npx killed, even with SIGKILL, while its `sh -c` lives
 * on), the child is sent SIGTERM (it stops as if cancelled and keeps what it measured),
 * then SIGKILL after PARENT_GONE_GRACE_MS, and this process ends with it: nothing runs on as an orphan.
 */
export function runForwarding(executable, argv, options = {}) {
  const child = spawn(executable, argv, { stdio: "inherit", ...options });
  const forward = (signal) => {
    try {
      child.kill(signal);
    } catch {
      // the child has already ended
    }
  };
  let interrupted = false;
  const listeners = FORWARDED.map((signal) => {
    const listener = () => {
      interrupted ||= signal === "SIGINT";
      forward(signal);
    };
    process.on(signal, listener);
    return [signal, listener];
  });
  const parent = process.ppid;
  const ancestors = watchedAncestors(parent);
  const watch = parent > 1
    ? setInterval(() => {
      if (process.ppid === parent && !ancestors.some(ended)) return;
      clearInterval(watch);
      forward("SIGTERM");
      // npm (npx, npm exec) ends at once on SIGTERM and its shell prints the prompt: what follows comes after it.
      if (process.env.npm_command) {
        process.stderr.write(
          `\nstrata-bench: npm (${process.env.npm_command}) ended before the benchmark did; its ending follows ` +
            `your shell's prompt. To keep them in order, send SIGTERM to strata-bench itself (pid ${process.pid}) ` +
            "or install the command (docs/install.md)\n",
        );
      }
      setTimeout(() => forward("SIGKILL"), PARENT_GONE_GRACE_MS).unref();
    }, PARENT_POLL_MS)
    : null;
  watch?.unref();
  child.on("error", (error) => {
    process.stderr.write(`strata-bench: cannot start ${executable}: ${error.message}\n`);
    process.exit(3);
  });
  child.on("exit", (code, signal) => {
    if (watch !== null) clearInterval(watch);
    for (const [name, listener] of listeners) process.off(name, listener);
    const exit = signal !== null ? EXIT_INTERRUPTED : code ?? 1;
    // Under npm (npx, npm exec, npm run) Ctrl-C also stops npm's own shell, and npm then reports 130 whatever the
    // benchmark ended with: say so, so that the screen's "exit N" and the shell's $? do not seem to disagree.
    if (interrupted && process.env.npm_command) {
      process.stderr.write(
        `strata-bench: ended with exit ${exit}; npm (${process.env.npm_command}) reports 130 ` +
          "to the shell after Ctrl-C\n",
      );
    }
    process.exit(exit);
  });
}
