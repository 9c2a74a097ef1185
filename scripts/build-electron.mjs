#!/usr/bin/env node
/**
 * Compiles the Electron host to JavaScript Electron can run:
 *   dist/electron/main.mjs     main process, ESM (the core imports ESM-only packages)
 *   dist/electron/preload.cjs  preload, CommonJS and self-contained (a sandboxed preload
 *                              can neither load ESM nor require anything but 'electron')
 *
 * npm packages stay external in main (node_modules ships with the app).
 * Core modules locate files next to themselves with `import.meta.url`
 * (package.json, dist/renderer, the lab's site child); once bundled that would
 * be the bundle's URL, so each core module gets its own source URL back,
 * expressed relative to the bundle so it also holds inside a packaged app.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'electron');

/** @type {import('esbuild').Plugin} */
const sourceUrls = {
  name: 'netlens-source-urls',
  setup(b) {
    b.onLoad({ filter: /[\\/]proxy[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'ts' };
      const rel = path.relative(outdir, args.path).split(path.sep).join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

const common = { bundle: true, platform: 'node', target: 'node20', sourcemap: 'linked', logLevel: 'warning', absWorkingDir: root };

await Promise.all([
  build({
    ...common,
    entryPoints: ['electron/main.ts'],
    outfile: path.join(outdir, 'main.mjs'),
    format: 'esm',
    packages: 'external',
    plugins: [sourceUrls],
  }),
  build({
    ...common,
    entryPoints: ['electron/preload.ts'],
    outfile: path.join(outdir, 'preload.cjs'),
    format: 'cjs',
    external: ['electron'],
  }),
]);
console.log(`electron: built ${path.relative(root, outdir)}/main.mjs and preload.cjs`);
