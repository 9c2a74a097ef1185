#!/usr/bin/env node
/**
 * Compiles the Electron host to JavaScript Electron can run:
 *   dist/electron/main.mjs     main process, ESM (the core imports ESM-only packages)
 *   dist/electron/preload.cjs  preload, CommonJS and self-contained (a sandboxed preload
 *                              can neither load ESM nor require anything but 'electron')
 *
 * npm packages stay external in main (node_modules ships with the app); main sets the
 * core's app paths from app.getAppPath() (proxy/src/app-paths.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { CHILD_ENTRIES } from './lab-children.mjs';
import { handleArgs } from './usage.mjs';
import { buildVendorBundles } from './vendor-bundles.mjs';

handleArgs(`Usage: npm run build:electron   (or: node scripts/build-electron.mjs)

Compiles the Electron host: dist/electron/main.mjs (main process, ESM) and
dist/electron/preload.cjs (sandboxed preload, CommonJS). Takes no arguments.
`);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'electron');

const common = { bundle: true, platform: 'node', target: 'node20', sourcemap: 'linked', logLevel: 'warning', absWorkingDir: root };

await Promise.all([
  build({
    ...common,
    entryPoints: ['electron/main.ts'],
    outfile: path.join(outdir, 'main.mjs'),
    format: 'esm',
    packages: 'external',
  }),
  // The lab's children, forked from next to main.mjs (see proxy/src/lab/child-process.ts).
  ...Object.entries(CHILD_ENTRIES).map(([name, entry]) =>
    build({ ...common, entryPoints: [entry], outfile: path.join(outdir, `${name}.js`), format: 'esm', packages: 'external' }),
  ),
  // undici's client as one file, loaded from next to main.mjs on first use (vendor-bundles.mjs).
  buildVendorBundles(build, root, outdir),
  build({
    ...common,
    entryPoints: ['electron/preload.ts'],
    outfile: path.join(outdir, 'preload.cjs'),
    format: 'cjs',
    external: ['electron'],
  }),
]);
console.log(`electron: built ${path.relative(root, outdir)}/main.mjs and preload.cjs`);
