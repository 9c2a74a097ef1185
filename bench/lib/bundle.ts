/**
 * Builds bench/peers/netlens.ts into one ES module with esbuild, the way the
 * desktop app ships its main process (scripts/build-electron.mjs): Netlens is
 * measured as it runs for users, without tsx's loader thread and helpers.
 */
import path from 'node:path';
import { BENCH_DIR } from './child.js';

export async function bundleNetlensPeer(outDir: string): Promise<string> {
  const { build } = await import('esbuild');
  const outfile = path.join(outDir, 'netlens-bundle.mjs');
  await build({
    entryPoints: [path.join(BENCH_DIR, 'peers/netlens.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
    // CommonJS dependencies call require().
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  return outfile;
}
