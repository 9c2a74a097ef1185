import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('scripts/build-electron.mjs', () => {
  it('builds an ESM main and a self-contained CommonJS preload', () => {
    execFileSync(process.execPath, ['scripts/build-electron.mjs'], { cwd: root, stdio: 'pipe' });
    const preload = fs.readFileSync(path.join(root, 'dist/electron/preload.cjs'), 'utf8');
    // A sandboxed preload can require 'electron' only: everything else must be bundled in.
    expect([...preload.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1])).toEqual(['electron']);
    expect(preload).toContain('exposeInMainWorld("netlens"');
    const main = fs.readFileSync(path.join(root, 'dist/electron/main.mjs'), 'utf8');
    expect(main).toMatch(/from "electron"/);
    // No core module finds a file relative to its own location: main sets the app paths (proxy/src/app-paths.ts).
    expect(main).not.toMatch(/new URL\([^)]*import\.meta\.url\)/);
    expect(main).toContain('setAppPaths(');
    // The lab's children are bundled next to main, where appPathsFor({ bundleDir }) forks them from.
    for (const child of ['proxy-child', 'site-child']) expect(fs.existsSync(path.join(root, `dist/electron/${child}.js`))).toBe(true);
    // undici's client pre-bundled next to main (scripts/vendor-bundles.mjs), found through the app paths' vendorDir.
    expect(fs.existsSync(path.join(root, 'dist/electron/undici-client.cjs'))).toBe(true);
  });
});
