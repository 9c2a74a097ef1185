/**
 * Finds a Chrome/Chromium executable the way users expect: `CHROME_PATH` first,
 * then chrome-launcher's search (which knows the usual install places per
 * platform, e.g. Debian's /usr/bin/chromium, macOS app bundles, Windows paths).
 */
import fs from 'node:fs';
import { lazyRequire } from '../lazy-require.js';

// chrome-launcher is an ES module; Node 20.19+ and Electron's Node 22 can require() it.
const chromeLauncher = lazyRequire<typeof import('chrome-launcher')>('chrome-launcher');
import { ErrorCodes, NetlensError } from '../errors.js';

const INSTALL_HINT =
  'Install Chrome or Chromium (Debian/Ubuntu: "apt-get install chromium"; Fedora: "dnf install chromium"; ' +
  'macOS/Windows: install Google Chrome), or set CHROME_PATH to its executable.';

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export interface FindChromeOptions {
  env?: NodeJS.ProcessEnv;
  /** The installation search; chrome-launcher's by default (replaceable in tests). */
  search?: () => string[];
}

/** The path of a Chrome/Chromium executable, or a NetlensError (NL_BROWSER_NOT_FOUND) that says how to get one. */
export function findChrome(options: FindChromeOptions = {}): string {
  const env = options.env ?? process.env;
  if (env.CHROME_PATH) {
    if (isExecutable(env.CHROME_PATH)) return env.CHROME_PATH;
    throw new NetlensError(
      ErrorCodes.BROWSER_NOT_FOUND,
      `CHROME_PATH is set to "${env.CHROME_PATH}", which is not an executable file. Point it at Chrome or Chromium, or unset it to search the usual places.`,
    );
  }
  let found: string[] = [];
  try {
    found = (options.search ?? (() => chromeLauncher().Launcher.getInstallations()))();
  } catch {
    // chrome-launcher throws on platforms it does not know; treat as "none found".
  }
  const chrome = found.find(isExecutable);
  if (!chrome) throw new NetlensError(ErrorCodes.BROWSER_NOT_FOUND, `No Chrome or Chromium found. ${INSTALL_HINT}`);
  return chrome;
}
