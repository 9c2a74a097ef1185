/**
 * Packages a bundled Netlens loads from a pre-bundled file next to its bundle (scripts/vendor-bundles.mjs),
 * found through the app paths' vendorDir; without one (the sources, a library user) the package itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appPathsFor, setAppPaths, vendoredFile } from '../src/app-paths.js';
import { lazyRequireVendored } from '../src/lazy-require.js';

const root = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterEach(() => {
  setAppPaths(appPathsFor({ root }));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function bundleDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-vendor-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('pre-bundled packages', () => {
  it('a bundled app loads the file next to its bundle instead of the package', () => {
    const dir = bundleDir({ 'pkg.cjs': 'module.exports = { from: "vendored" };' });
    setAppPaths(appPathsFor({ root, bundleDir: dir }));
    expect(vendoredFile('pkg.cjs')).toBe(path.join(dir, 'pkg.cjs'));
    expect(lazyRequireVendored<{ from: string }>('no-such-package-netlens', 'pkg.cjs')()).toEqual({ from: 'vendored' });
  });

  it('falls back to the package when the bundle directory has no such file (a build from before it existed)', () => {
    setAppPaths(appPathsFor({ root, bundleDir: bundleDir({}) }));
    expect(vendoredFile('undici-client.cjs')).toBeUndefined();
    const Client = lazyRequireVendored<{ name: string }>('undici/lib/dispatcher/client.js', 'undici-client.cjs')();
    expect(Client.name).toBe('Client');
  });

  it('running the sources, nothing is vendored', () => {
    setAppPaths(appPathsFor({ root }));
    expect(vendoredFile('undici-client.cjs')).toBeUndefined();
    expect(() => lazyRequireVendored('no-such-package-netlens', 'pkg.cjs')()).toThrow(/no-such-package-netlens/);
  });
});
