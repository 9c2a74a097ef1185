/**
 * bin/start.js (`npm start`): Electron when a binary exists, otherwise one
 * line and `netlens serve --open`. This machine has no Electron binary, so the
 * fallback runs for real; the Electron branch runs with a stand-in binary.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-start-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['bin/start.js', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function until<T>(fn: () => T | undefined, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('npm start (bin/start.js)', () => {
  it('without an Electron binary: says so in one line, serves the UI, stops cleanly on SIGINT', async () => {
    const env: Record<string, string> = { NETLENS_DATA_DIR: tmp(), PATH: process.env.PATH ?? '' };
    if (process.env.NETLENS_ELECTRON) env.NETLENS_ELECTRON = 'none';
    const s = start(['--proxy-port', '0'], env);
    try {
      const url = await until(() => /Netlens UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(s.out())?.[1], 30_000);
      // One line about Electron; on a fresh checkout a "building the UI" progress line may precede it.
      // Without a display, `serve --open` adds its own line saying no browser was opened (and to open the URL by hand).
      if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
        await until(() => (s.err().includes('--open: no browser was opened') ? true : undefined), 10_000);
      const lines = s
        .err()
        .trim()
        .split('\n')
        .filter(
          (l) => l.startsWith('netlens') && !l.startsWith('netlens start: building the UI') && !l.startsWith('netlens serve: --open'),
        );
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^netlens: no Electron binary to run \(.+\); opening the UI in your browser with "netlens serve --open" instead\.$/,
      );
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
      expect(s.out()).toMatch(/Proxy listening on http:\/\/127\.0\.0\.1:\d+/);
    } finally {
      s.child.kill('SIGINT');
    }
    expect(await s.exited).toBe(0);
    expect(s.err()).toContain('SIGINT: stopping');
  }, 60_000);

  it('with an Electron binary: builds the host and runs the binary on the app directory', async () => {
    if (process.platform === 'win32') return; // the stand-in binary is a shell script
    const dir = tmp();
    const fake = path.join(dir, 'electron');
    const log = path.join(dir, 'log.json');
    fs.writeFileSync(fake, `#!/bin/sh\nprintf '{"args":"%s","runAsNode":"%s"}' "$*" "$ELECTRON_RUN_AS_NODE" > '${log}'\nexit 7\n`, {
      mode: 0o755,
    });
    const s = start(['--flag'], { NETLENS_ELECTRON: fake, ELECTRON_RUN_AS_NODE: '1' });
    expect(await s.exited).toBe(7); // the app's exit code is npm start's
    expect(JSON.parse(fs.readFileSync(log, 'utf8'))).toEqual({ args: `${root} --flag`, runAsNode: '' });
    expect(s.err()).not.toContain('no Electron binary');
    expect(fs.existsSync(path.join(root, 'dist/electron/main.mjs'))).toBe(true);
    expect(fs.existsSync(path.join(root, 'dist/electron/preload.cjs'))).toBe(true);
  }, 60_000);

  it('a named binary that does not exist falls back with the reason', async () => {
    const s = start(['--proxy-port', '0'], { NETLENS_ELECTRON: '/nonexistent/electron', NETLENS_DATA_DIR: tmp() });
    try {
      await until(() => (s.out().includes('Netlens UI:') ? true : undefined), 30_000);
      expect(s.err()).toContain('NETLENS_ELECTRON=/nonexistent/electron does not exist');
    } finally {
      s.child.kill('SIGINT');
    }
    expect(await s.exited).toBe(0);
  }, 60_000);
});
