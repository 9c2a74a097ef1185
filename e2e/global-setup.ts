/**
 * Builds the renderer when dist/renderer is missing or older than its sources,
 * so `npm run test:e2e` always tests the current UI.
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
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

export default function globalSetup(): void {
  const index = path.join(root, 'dist', 'renderer', 'index.html');
  const sources = Math.max(newestMtime(path.join(root, 'renderer')), newestMtime(path.join(root, 'proxy', 'src', 'api')));
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= sources) return;
  console.log('e2e: building the renderer (npm run build)…');
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
}
