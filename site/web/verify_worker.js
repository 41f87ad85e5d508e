// @ts-check
/**
 * A module worker that verifies entries for the page, so that hashing, parsing and the recomputation use every
 * core. Message in: { id, root, site, read }; message out: { id, outcome }. A check that throws is answered as
 * unverifiable with the error, never left unanswered.
 */
import { siteProtocols, unverifiable, verifyEntry } from "./verify_entry.js";

/** @type {Promise<readonly import("./protocol.js").KnownProtocol[]> | null} */
let protocols = null;

/** @param {MessageEvent} event */
async function onMessage(event) {
  const { id, root, site, read } = event.data;
  let outcome;
  try {
    protocols ??= siteProtocols(root);
    outcome = await verifyEntry(root, site, read, await protocols);
  } catch (error) {
    outcome = unverifiable([`the check stopped: ${error instanceof Error ? error.message : String(error)}`]);
  }
  globalThis.postMessage({ id, outcome });
}

globalThis.addEventListener("message", (event) => void onMessage(/** @type {MessageEvent} */ (event)));
