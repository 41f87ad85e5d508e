/**
 * sanitize/: redaction of everything a result or a load file publishes (home folders, private paths, user and host
 * names, addresses, keys and tokens, what logs carry besides) into stable placeholders; what report/ writes and
 * judges, load/ stamps and review/ re-reads goes through it. Imports only runtime/.
 */
export {
  machineSanitizer,
  PLACEHOLDER_KINDS,
  REDACTION_PLACEHOLDER,
  sanitizeCommand,
  sanitizeJson,
  type Sanitizer,
  sanitizeText,
} from "./sanitize.ts";
