import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** Netlens's version, for `log.creator.version` of the HARs it writes. */
export function version(): string {
  if (cached === undefined) {
    try {
      cached = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      cached = '0.0.0';
    }
  }
  return cached;
}
