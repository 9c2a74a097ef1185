/**
 * Builds bench/peers/netlens.ts into one ES module with esbuild, the way the
 * CLI and the desktop app ship it (scripts/build-cli.mjs, build-electron.mjs):
 * our code bundled, npm packages external and loaded from node_modules (some
 * on first use, see proxy/src/lazy-require.ts). Netlens is measured as it
 * runs for users, without tsx's loader thread and helpers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_DIR, ROOT_DIR } from './child.js';

/** Returns the bundle's path. It lives under dist/bench so its external packages resolve from the repo's node_modules. */
export async function bundleNetlensPeer(): Promise<string> {
  const { build } = await import('esbuild');
  const dir = path.join(ROOT_DIR, 'dist', 'bench');
  fs.mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, `netlens-peer-${process.pid}.mjs`);
  await build({
    entryPoints: [path.join(BENCH_DIR, 'peers/netlens.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'error',
  });
  // One bundle per harness process; removed when the harness exits.
  process.once('exit', () => fs.rmSync(outfile, { force: true }));
  return outfile;
}
