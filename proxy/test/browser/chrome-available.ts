import { findChrome } from '../../src/browser/find-chrome.js';

/** The Chrome the browser tests use, or undefined (tests then skip, saying why). */
export const chromePath: string | undefined = (() => {
  try {
    return findChrome();
  } catch (err) {
    console.warn(`Browser tests SKIPPED: ${(err as Error).message}`);
    return undefined;
  }
})();
