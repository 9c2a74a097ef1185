#!/usr/bin/env node
/**
 * Bundles the CLI (and the core it runs) into dist/cli/main.mjs, which
 * bin/netlens.js runs with plain node whenever it is newer than every source
 * file. Without it the CLI runs the TypeScript through tsx, which costs a
 * loader thread (~25 MB of memory) and a few percent of CPU in the proxy's
 * hot path. npm packages stay external (they are in node_modules). The bundle finds
 * no file relative to itself: bin/netlens.js gives it the app paths (proxy/src/app-paths.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { CHILD_ENTRIES } from './lab-children.mjs';
import { handleArgs } from './usage.mjs';
import { buildVendorBundles } from './vendor-bundles.mjs';

handleArgs(`Usage: npm run build:cli   (or: node scripts/build-cli.mjs)

Bundles the CLI and the core it runs into dist/cli/main.mjs (esbuild), which
bin/netlens.js runs with plain node while it is newer than every source file.
Takes no arguments. "npm run build" also runs it after building the renderer.
`);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'cli');

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
};
await Promise.all([
  build({ ...common, entryPoints: ['proxy/src/cli/main.ts'], outfile: path.join(outdir, 'main.mjs') }),
  // The lab's children (test site, proxy under test), forked from next to main.mjs.
  ...Object.entries(CHILD_ENTRIES).map(([name, entry]) =>
    build({ ...common, entryPoints: [entry], outfile: path.join(outdir, `${name}.js`) }),
  ),
  // undici's client as one file, loaded from next to main.mjs on first use (vendor-bundles.mjs).
  buildVendorBundles(build, root, outdir),
]);
console.log(`cli: built ${path.relative(root, outdir)}/main.mjs and the lab's child entries`);
