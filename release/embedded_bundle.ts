/** The fixture bundle as bytes inside a compiled binary, read through the same BundleSource the runner uses. */
import { Buffer } from "node:buffer";
import type { BundleSource } from "../fixtures/mod.ts";

/** Where messages say the embedded bundle is. */
export const EMBEDDED_BUNDLE_LOCATION = "the standard-v1 bundle built into this executable";

/** A BundleSource over files given as base64 text by name (what the compile step writes into the binary). */
export function memoryBundleSource(
  filesBase64: Readonly<Record<string, string>>,
  location: string = EMBEDDED_BUNDLE_LOCATION,
): BundleSource {
  const names = Object.keys(filesBase64).sort();
  return {
    location,
    list: () => Promise.resolve(names.map((name) => ({ name, isFile: true }))),
    read(name) {
      const text = Object.hasOwn(filesBase64, name) ? filesBase64[name] : undefined;
      return Promise.resolve(text === undefined ? null : new Uint8Array(Buffer.from(text, "base64")));
    },
  };
}

/** Encodes bundle files (name to bytes) for memoryBundleSource, names sorted so the output is deterministic. */
export function encodeBundleFiles(files: ReadonlyMap<string, Uint8Array>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...files.keys()].sort()) out[name] = Buffer.from(files.get(name)!).toString("base64");
  return out;
}
