#!/usr/bin/env node
/**
 * `npm start`: the desktop app when an Electron binary is installed; otherwise
 * (no binary, e.g. installed with ELECTRON_SKIP_BINARY_DOWNLOAD or where the
 * download failed) one line saying so, then the same UI in the default browser
 * through `netlens serve --open`. Extra arguments go to whichever runs.
 *
 * NETLENS_ELECTRON=<path> names an Electron binary explicitly;
 * NETLENS_ELECTRON=none forces the browser fallback.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliEntry } from './cli-entry.js';
import { installedElectron } from './electron-binary.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/** The Electron binary, or the reason there is none. */
function findElectron() {
  const explicit = process.env.NETLENS_ELECTRON;
  if (explicit === 'none') return { reason: 'NETLENS_ELECTRON=none' };
  if (explicit) return fs.existsSync(explicit) ? { binary: explicit } : { reason: `NETLENS_ELECTRON=${explicit} does not exist` };
  return installedElectron();
}

function run(cmd, cmdArgs, what) {
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' && cmd === 'npm' });
  if (r.status !== 0) {
    console.error(`netlens start: ${what} failed (exit ${r.status ?? r.signal}).`);
    process.exit(1);
  }
}

function ensureRenderer() {
  if (fs.existsSync(path.join(root, 'dist', 'renderer', 'index.html'))) return;
  console.error('netlens start: building the UI (npm run build)…');
  run('npm', ['run', 'build'], 'building the UI');
}

/**
 * Runs the child in its own process group (POSIX) and forwards each stop
 * signal exactly once: a terminal's Ctrl+C reaches npm and this script, and a
 * second SIGINT would cut the child's clean shutdown short.
 */
function supervise(cmd, cmdArgs, env) {
  const child = spawn(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env, detached: process.platform !== 'win32' });
  const forwarded = new Set();
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      if (forwarded.has(sig)) return;
      forwarded.add(sig);
      child.kill(sig);
    });
  }
  child.on('error', (err) => {
    console.error(`netlens start: could not run ${cmd}: ${err.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const found = findElectron();
if (found.binary) {
  ensureRenderer();
  run(process.execPath, [path.join(root, 'scripts', 'build-electron.mjs')], 'building the Electron host');
  // An inherited ELECTRON_RUN_AS_NODE would start Electron as plain Node instead of the app.
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  supervise(found.binary, [root, ...args], env);
} else {
  console.error(
    `netlens: no Electron binary to run (${found.reason}); opening the UI in your browser with "netlens serve --open" instead.`,
  );
  ensureRenderer();
  // The CLI bundle starts faster and uses less memory than the sources under tsx; it takes well under a second to build.
  if (cliEntry(root).kind === 'source') run(process.execPath, [path.join(root, 'scripts', 'build-cli.mjs')], 'building the CLI');
  supervise(process.execPath, [path.join(root, 'bin', 'netlens.js'), 'serve', '--open', ...args], process.env);
}
