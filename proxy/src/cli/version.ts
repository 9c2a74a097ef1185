import { readFileSync } from 'node:fs';

/** Netlens's version from package.json. Its own module so commands (serve) need not import main.ts, which imports them. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
