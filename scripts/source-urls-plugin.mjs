/**
 * esbuild plugin shared by the bundles of the core (Electron main, CLI).
 * Core modules locate files next to themselves with `import.meta.url`
 * (package.json, dist/renderer, the lab's site child); once bundled that would
 * be the bundle's URL, so each core module gets its own source URL back,
 * expressed relative to the bundle so it also holds inside a packaged app.
 *
 * Files marked `netlens:bundle-relative` keep the bundle's own URL: they
 * locate the lab's child entries, which the build emits next to the bundle
 * (CHILD_ENTRIES), so children run bundled too rather than under tsx.
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
        if (!text.includes('import.meta.url') || text.includes('netlens:bundle-relative')) return { contents: text, loader: 'ts' };
        const rel = path.relative(outdir, args.path).split(path.sep).join('/');
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
}

/** Child-process entries the lab forks (see proxy/src/lab/child-process.ts), bundled next to main. */
export const CHILD_ENTRIES = { 'proxy-child': 'proxy/src/lab/proxy-child.ts', 'site-child': 'proxy/src/lab/site/site-child.ts' };
