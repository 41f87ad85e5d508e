// @ts-check
/**
 * Verified verdicts remembered in this browser (IndexedDB), so a returning reader does not wait for the same
 * evidence to be checked again. A verdict is kept only when it is "verified", under a key made of everything the
 * check read: the site's check code (the build's SHA-256 of the browser files), the protocol declarations, the
 * SHA-256-named evidence locations and the manifest entry. Changed code, evidence or entry is a new key, checked
 * afresh. A verdict that failed is never remembered: it is checked again on every visit. Where IndexedDB cannot be
 * opened (a private window, a policy) nothing is remembered and every entry is checked.
 */

/** @typedef {import("./check_result.js").CheckOutcome} CheckOutcome */
/** @typedef {{ get(key: string): Promise<{ outcome: CheckOutcome, checkedAt: string } | null>, put(key: string, outcome: CheckOutcome): void }} Remembered */

const DB_NAME = "strata-site-verdicts";
const STORE = "verdicts";

/** @type {Remembered} */
const NOTHING = { get: () => Promise.resolve(null), put: () => {} };

/** @returns {Promise<IDBDatabase | null>} */
function openDatabase() {
  return new Promise((resolve) => {
    try {
      const request = indexedDB.open(DB_NAME, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => resolve(null);
      request.onblocked = () => resolve(null);
    } catch {
      resolve(null);
    }
  });
}

/**
 * The remembered verdicts for this site's check code; nothing is remembered without `checkerSha256`.
 * @param {string | null} checkerSha256 @param {string} protocolsText
 * @returns {Promise<Remembered>}
 */
export async function openRemembered(checkerSha256, protocolsText) {
  if (checkerSha256 === null || typeof indexedDB === "undefined") return NOTHING;
  const db = await openDatabase();
  if (db === null) return NOTHING;
  const full = (/** @type {string} */ key) => JSON.stringify([checkerSha256, protocolsText, key]);
  return {
    get(key) {
      return new Promise((resolve) => {
        try {
          const request = db.transaction(STORE, "readonly").objectStore(STORE).get(full(key));
          request.onsuccess = () => {
            const kept = request.result;
            const ok = typeof kept === "object" && kept !== null && kept.outcome?.state === "verified" &&
              typeof kept.checkedAt === "string";
            resolve(ok ? { outcome: kept.outcome, checkedAt: kept.checkedAt } : null);
          };
          request.onerror = () => resolve(null);
        } catch {
          resolve(null);
        }
      });
    },
    put(key, outcome) {
      if (outcome.state !== "verified") return;
      try {
        db.transaction(STORE, "readwrite").objectStore(STORE).put(
          { outcome, checkedAt: new Date().toISOString() },
          full(key),
        );
      } catch {
        // Nothing remembered: the next visit checks again.
      }
    },
  };
}
