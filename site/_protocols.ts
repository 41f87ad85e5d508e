/** The protocols a command knows: the site's built-in registry, plus the ids a `--protocols FILE` declares. */
import { KNOWN_PROTOCOLS, type KnownProtocol, parseStrictJson, protocolsWithDeclarations } from "./web/mod.js";

/** A protocol declaration file that cannot be used. */
export class ProtocolsFileError extends Error {
  override readonly name = "ProtocolsFileError";
}

/**
 * The known protocols, with the declarations of `bytes` added when given.
 * @throws {ProtocolsFileError} when the file is not a valid declaration file.
 */
export function knownProtocols(bytes: Uint8Array | null): readonly KnownProtocol[] {
  if (bytes === null) return KNOWN_PROTOCOLS;
  const parsed = parseStrictJson(new TextDecoder().decode(bytes));
  if (!parsed.ok) throw new ProtocolsFileError(`Cannot read the protocols file: not strict JSON (${parsed.message})`);
  const declared = protocolsWithDeclarations(parsed.value);
  if (!declared.ok) {
    throw new ProtocolsFileError(`Cannot read the protocols file:\n  ${declared.problems.join("\n  ")}`);
  }
  return declared.protocols;
}
