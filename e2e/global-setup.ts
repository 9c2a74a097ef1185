/**
 * Builds the renderer when dist/renderer is missing or older than its sources,
 * so `npm run test:e2e` always tests the current UI.
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

function buildRenderer(): void {
  const index = path.join(root, 'dist', 'renderer', 'index.html');
  // The renderer bundles pure modules from proxy/src (the API contract, the HAR model, lab limits).
  const sources = Math.max(newestMtime(path.join(root, 'renderer')), newestMtime(path.join(root, 'proxy', 'src')));
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= sources) return;
  console.log('e2e: building the renderer (npm run build)…');
  // Without vitest's NODE_ENV=test, which would make Vite bundle React's development build
  // (~40% larger, unminified) into the dist/ that `netlens serve` serves after the tests.
  const env = { ...process.env };
  delete env.NODE_ENV;
  execSync('npm run build', { cwd: root, stdio: 'inherit', env });
}

/**
 * One temporary directory per test run, removed at its end: every data directory,
 * browser profile and fixture the tests (and the processes they start) make under
 * os.tmpdir() lands there, so a run leaves nothing behind even when a test fails or
 * forgets to clean up. Workers and child processes inherit TMPDIR.
 */
function runTmpDir(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-run-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}

/** Used by vitest and Playwright alike; the returned function is the run's teardown. */
export default function globalSetup(): () => void {
  buildRenderer();
  return runTmpDir();
}
