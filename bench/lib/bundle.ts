/**
 * Builds bench/peers/netlens.ts into one ES module with esbuild, the way the
 * CLI and the desktop app ship it (scripts/build-cli.mjs, build-electron.mjs):
 * our code bundled, npm packages external and loaded from node_modules (some
 * on first use, see proxy/src/lazy-require.ts). Netlens is measured as it
 * runs for users, without tsx's loader thread and helpers.
 */
import fs from 'node:fs';
import path from 'node:path';
// @ts-expect-error plain JavaScript shared with scripts/build-cli.mjs, no types
import { buildVendorBundles } from '../../scripts/vendor-bundles.mjs';
import { BENCH_DIR, ROOT_DIR } from './child.js';

/**
 * Bundles a script under bench/ (e.g. 'peers/netlens.ts') into dist/bench/<name>-<pid>.mjs and returns its path;
 * there its external packages resolve from the repo's node_modules. Removed when this process exits.
 */
export async function bundleBenchEntry(entry: string, name: string): Promise<string> {
  const { build } = await import('esbuild');
  const dir = path.join(ROOT_DIR, 'dist', 'bench');
  fs.mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, `${name}-${process.pid}.mjs`);
  await build({
    entryPoints: [path.join(BENCH_DIR, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'error',
  });
  process.once('exit', () => fs.rmSync(outfile, { force: true }));
  return outfile;
}

/**
 * The Netlens peer bundled (one per harness process), with the pre-bundled packages it loads on first use
 * next to it as the CLI and the app ship them (scripts/vendor-bundles.mjs; the peer sets its app paths' vendorDir).
 */
export async function bundleNetlensPeer(): Promise<string> {
  const [file] = await Promise.all([bundleBenchEntry('peers/netlens.ts', 'netlens-peer'), vendorBundles()]);
  return file;
}

/** Where `h2-paired.ts --save NAME` keeps a Netlens bundle of one tree, for the paired tools' `saved:NAME` subjects. */
export function savedBundlePath(name: string): string {
  return path.join(ROOT_DIR, 'dist', 'bench', `netlens-peer-saved-${name}.mjs`);
}

let vendored: Promise<void> | undefined;
function vendorBundles(): Promise<void> {
  return (vendored ??= import('esbuild').then(({ build }) => buildVendorBundles(build, ROOT_DIR, path.join(ROOT_DIR, 'dist', 'bench'))));
}
