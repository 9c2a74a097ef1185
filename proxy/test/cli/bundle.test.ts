/** The CLI bundle (scripts/build-cli.mjs) and how bin/netlens.js picks it over the sources. */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cliEntry } from '../../../bin/cli-entry.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function fakeRoot(sourceMtime: number, bundleMtime?: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-entry-'));
  const src = path.join(dir, 'proxy', 'src', 'cli');
  fs.mkdirSync(src, { recursive: true });
  fs.writeFileSync(path.join(src, 'main.ts'), '');
  fs.utimesSync(path.join(src, 'main.ts'), sourceMtime, sourceMtime);
  if (bundleMtime !== undefined) {
    fs.mkdirSync(path.join(dir, 'dist', 'cli'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'dist', 'cli', 'main.mjs'), '');
    fs.utimesSync(path.join(dir, 'dist', 'cli', 'main.mjs'), bundleMtime, bundleMtime);
  }
  return dir;
}

describe('CLI entry choice (bin/cli-entry.js)', () => {
  it('runs the bundle when it is newer than every source file', () => {
    expect(cliEntry(fakeRoot(1000, 2000)).kind).toBe('bundle');
  });
  it('runs the sources when one is newer than the bundle (never a stale build)', () => {
    expect(cliEntry(fakeRoot(3000, 2000)).kind).toBe('source');
  });
  it('runs the sources when there is no bundle (right after npm ci)', () => {
    expect(cliEntry(fakeRoot(1000)).kind).toBe('source');
  });
});

describe('scripts/build-cli.mjs', () => {
  it('builds a bundle that runs the CLI with plain node (no tsx), with the app paths its caller sets', () => {
    const outdir = path.join(root, 'dist', 'cli');
    execFileSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: root, stdio: 'pipe' });
    const bundle = path.join(outdir, 'main.mjs');
    const text = fs.readFileSync(bundle, 'utf8');
    expect(text).not.toMatch(/from "node-forge"/);
    // No file is found relative to the bundle's own location: the entry point passes the paths.
    expect(text).not.toMatch(/new URL\([^)]*import\.meta\.url\)/);
    // The lab forks its children from next to the bundle, bundled too (not .ts under tsx).
    for (const child of ['proxy-child', 'site-child']) expect(fs.existsSync(path.join(outdir, `${child}.js`))).toBe(true);
    // undici's HTTP/1.1 client as one pre-bundled file (scripts/vendor-bundles.mjs), which loads and runs on its own.
    const vendored = `const C = require(${JSON.stringify(path.join(outdir, 'undici-client.cjs'))});
      process.stdout.write(typeof C + ' ' + C.name + ' ' + Object.keys(require.cache).filter((f) => f.includes('node_modules')).length);`;
    expect(execFileSync(process.execPath, ['-e', vendored], { encoding: 'utf8' })).toBe('function Client 0');
    const load = `const cli = await import(${JSON.stringify(pathToFileURL(bundle).href)});
      cli.setAppPaths(cli.appPathsFor({ root: ${JSON.stringify(root)}, bundleDir: ${JSON.stringify(outdir)} }));`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-cli-bundle-'));
    const script = `${load} process.exitCode = await cli.main(['ca', '--data-dir', ${JSON.stringify(dataDir)}, '--json']);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const info = JSON.parse(out) as { certPath: string };
    expect(fs.existsSync(info.certPath)).toBe(true);
    const version = execFileSync(process.execPath, ['--input-type=module', '-e', `${load} await cli.main(['--version']);`], {
      encoding: 'utf8',
    });
    expect(version.trim()).toBe(`netlens ${JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version}`);
  });
  it('tells the caller that forgot the app paths what to do, instead of guessing a location', () => {
    const bundle = path.join(root, 'dist', 'cli', 'main.mjs');
    const script = `const { main } = await import(${JSON.stringify(pathToFileURL(bundle).href)}); process.exitCode = await main(['--version']);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/app paths are not set.*setAppPaths/);
  });
  it('bin/netlens.js runs the built bundle: --version and serve --help', () => {
    const run = (args: string[]) => execFileSync(process.execPath, ['bin/netlens.js', ...args], { cwd: root, encoding: 'utf8' });
    expect(run(['--version']).trim()).toBe(`netlens ${JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version}`);
    expect(run(['serve', '--help'])).toMatch(/^Usage: netlens serve/);
  });
});
