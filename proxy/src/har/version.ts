import { appVersion } from '../app-paths.js';

/**
 * Netlens's version, for `log.creator.version` of the HARs it writes: the one the
 * entry point set (app-paths.ts), or 0.0.0 in a process that set none (a library
 * user, a test helper process), as when package.json could not be read.
 */
export function version(): string {
  return appVersion() ?? '0.0.0';
}
