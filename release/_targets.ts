/** The five release targets and their names in Deno's and Bun's compilers. */

/** One operating system and CPU a release binary is built for. */
export interface ReleaseTarget {
  /** Short name used on the command line and in artifact names. */
  name: string;
  /** `deno compile --target` value; also names the denort base binary. */
  denoTriple: string;
  /** `bun build --compile --target` value. */
  bunTarget: string;
  /** File name suffix of an executable on that system. */
  exeSuffix: "" | ".exe";
}

/** Every target a release is built for, in the order artifacts are listed. */
export const RELEASE_TARGETS: readonly ReleaseTarget[] = [
  { name: "linux-x64", denoTriple: "x86_64-unknown-linux-gnu", bunTarget: "bun-linux-x64", exeSuffix: "" },
  { name: "linux-arm64", denoTriple: "aarch64-unknown-linux-gnu", bunTarget: "bun-linux-arm64", exeSuffix: "" },
  { name: "darwin-x64", denoTriple: "x86_64-apple-darwin", bunTarget: "bun-darwin-x64", exeSuffix: "" },
  { name: "darwin-arm64", denoTriple: "aarch64-apple-darwin", bunTarget: "bun-darwin-arm64", exeSuffix: "" },
  { name: "windows-x64", denoTriple: "x86_64-pc-windows-msvc", bunTarget: "bun-windows-x64", exeSuffix: ".exe" },
];

/**
 * The target matching `platform` and `arch` as node:os names them (linux/darwin/win32, x64/arm64), or null.
 */
export function hostTarget(platform: string, arch: string): ReleaseTarget | null {
  const os = platform === "win32" ? "windows" : platform;
  return RELEASE_TARGETS.find((t) => t.name === `${os}-${arch}`) ?? null;
}

/**
 * The targets named on the command line ("all" or "host" expand).
 * @throws {RangeError} naming an unknown target and the valid names.
 */
export function selectTargets(names: readonly string[], host: ReleaseTarget | null): ReleaseTarget[] {
  const chosen = new Map<string, ReleaseTarget>();
  for (const name of names) {
    if (name === "all") {
      for (const t of RELEASE_TARGETS) chosen.set(t.name, t);
    } else if (name === "host") {
      if (host === null) throw new RangeError("Cannot build for the host: this system is not a release target");
      chosen.set(host.name, host);
    } else {
      const target = RELEASE_TARGETS.find((t) => t.name === name);
      if (!target) {
        const valid = RELEASE_TARGETS.map((t) => t.name).join(", ");
        throw new RangeError(`Cannot build for "${name}": not a release target; use one of ${valid}, all or host`);
      }
      chosen.set(target.name, target);
    }
  }
  return RELEASE_TARGETS.filter((t) => chosen.has(t.name));
}
