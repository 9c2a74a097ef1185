/**
 * Which CLI entry to run: the bundle (dist/cli/main.mjs, from `npm run build`)
 * when it is at least as new as every source file it was built from, else the
 * TypeScript sources through tsx, so `npx netlens` works right after `npm ci`
 * and an edited source is never shadowed by a stale bundle.
 */
import fs from 'node:fs';
import path from 'node:path';

// Joined by hand, not with path.join: its normalizing loop, run for every one of the few
// hundred source files, got hot enough for V8 to optimize it, and the optimizing compiler's
// first use maps ~3 MB of its code into every CLI process at startup (docs/benchmarks.md).
function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = dir + path.sep + entry.name;
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** @returns {{ kind: 'bundle' | 'source', file: string }} */
export function cliEntry(root) {
  const bundle = path.join(root, 'dist', 'cli', 'main.mjs');
  const source = path.join(root, 'proxy', 'src', 'cli', 'main.ts');
  try {
    if (fs.statSync(bundle).mtimeMs >= newestMtime(path.join(root, 'proxy', 'src'))) return { kind: 'bundle', file: bundle };
  } catch {
    // No bundle (or no sources in a packaged layout): fall through.
  }
  return { kind: 'source', file: source };
}
