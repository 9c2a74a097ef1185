/**
 * esbuild plugin shared by the bundles of the core (Electron main, CLI).
 * Core modules locate files next to themselves with `import.meta.url`
 * (package.json, dist/renderer, the lab's site child); once bundled that would
 * be the bundle's URL, so each core module gets its own source URL back,
 * expressed relative to the bundle so it also holds inside a packaged app.
 */
import fs from 'node:fs';
import path from 'node:path';

/** @returns {import('esbuild').Plugin} */
export function sourceUrls(outdir) {
  return {
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
}
