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
/** @typedef {{ outcome: CheckOutcome, checkedAt: string }} Kept */
/**
 * @typedef {{ getMany(keys: readonly string[]): Promise<Map<string, Kept>>,
 *   putMany(verdicts: readonly [string, CheckOutcome][]): void }} Remembered
 */

const DB_NAME = "strata-site-verdicts";
const STORE = "verdicts";

/** @type {Remembered} */
const NOTHING = { getMany: () => Promise.resolve(new Map()), putMany: () => {} };

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

/** @param {unknown} kept @returns {kept is Kept} */
function isKept(kept) {
  if (typeof kept !== "object" || kept === null) return false;
  const k = /** @type {{ outcome?: { state?: unknown }, checkedAt?: unknown }} */ (kept);
  return k.outcome?.state === "verified" && typeof k.checkedAt === "string";
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
    // One transaction for every key: a large manifest is read back at once.
    getMany(keys) {
      return new Promise((resolve) => {
        /** @type {Map<string, Kept>} */
        const found = new Map();
        try {
          const transaction = db.transaction(STORE, "readonly");
          const store = transaction.objectStore(STORE);
          for (const key of new Set(keys)) {
            const request = store.get(full(key));
            request.onsuccess = () => {
              if (isKept(request.result)) found.set(key, request.result);
            };
          }
          transaction.oncomplete = () => resolve(found);
          transaction.onerror = () => resolve(found);
          transaction.onabort = () => resolve(found);
        } catch {
          resolve(found);
        }
      });
    },
    putMany(verdicts) {
      const checkedAt = new Date().toISOString();
      try {
        const store = db.transaction(STORE, "readwrite").objectStore(STORE);
        for (const [key, outcome] of verdicts) {
          if (outcome.state === "verified") store.put({ outcome, checkedAt }, full(key));
        }
      } catch {
        // Nothing remembered: the next visit checks again.
      }
    },
  };
}
