/**
 * Launches Debian's chromium (or $STRATA_CHROMIUM) headless through playwright-core, which drives an installed
 * browser and never downloads one.
 *
 * playwright-core asks at load time whether it runs under WSL, with fs.existsSync on a /proc/sys path. Deno grants
 * that path only with --allow-all, which no permission set here uses, and its existsSync throws instead of
 * answering false. The shim below answers false for a path that cannot be checked; nothing else changes.
 */
import fs from "node:fs";
import type { Browser } from "playwright-core";

export const CHROMIUM = Deno.env.get("STRATA_CHROMIUM") ?? "/usr/bin/chromium";

let shimmed = false;

/**
 * Starts the browser. `tempDir`: where playwright-core keeps its artifacts (it uses the temporary folder), for a
 * caller allowed to write only there.
 * @throws {Error} naming the install step when no browser is there.
 */
export async function launchChromium(options: { tempDir?: string } = {}): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Cannot start the browser: no ${CHROMIUM}; apt-get install chromium, or set STRATA_CHROMIUM`);
  }
  if (!shimmed) {
    const existsSync = fs.existsSync;
    fs.existsSync = ((path: fs.PathLike) => {
      try {
        return existsSync(path);
      } catch {
        return false;
      }
    }) as typeof fs.existsSync;
    shimmed = true;
  }
  if (options.tempDir !== undefined) {
    await Deno.mkdir(options.tempDir, { recursive: true });
    Deno.env.set("TMPDIR", options.tempDir);
  }
  const { chromium } = await import("playwright-core");
  return await chromium.launch({ executablePath: CHROMIUM, headless: true });
}
