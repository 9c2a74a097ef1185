/**
 * `netlens serve` as a user starts it (real child process): the hint for a
 * taken proxy port names --proxy-port (not the UI's --port), the CA path is
 * printed, and --open without a display (or without an opener) says so.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../proxy/harness.js';
import { noDisplayReason } from '../../src/cli/open-url.js';

const BIN = path.resolve('bin/netlens.js');
const dataDir = tempDataDir();
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Runs `netlens serve ARGS` until it printed its UI URL and whatever --open said, then Ctrl-C. */
async function serveOnce(
  args: string[],
  env: NodeJS.ProcessEnv,
  until: RegExp,
): Promise<{ out: string; err: string; code: number | null }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  const deadline = Date.now() + 30_000;
  while (!until.test(out + err) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGINT');
  return { out, err, code: await exited };
}

const baseEnv = () => {
  const env: NodeJS.ProcessEnv = { ...process.env, NETLENS_DATA_DIR: dataDir };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  return env;
};

describe('netlens serve (CLI)', () => {
  it('proxy port taken: the hint names --proxy-port; the CA path is printed; --open without a display says what to do', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = await serveOnce(['--proxy-port', String(port), '--open'], baseEnv(), /no browser was opened/);
      expect(r.out).toMatch(/Netlens UI: http:\/\/127\.0\.0\.1:\d+\//);
      expect(r.err).toMatch(
        new RegExp(
          `port ${port} on 127\\.0\\.0\\.1 is already in use.*--proxy-port N \\(--proxy-port 0 for any free port\\).*\\[NL_PORT_IN_USE\\]`,
        ),
      );
      expect(r.err).not.toMatch(/another --port|use --port 0/);
      expect(r.out).toContain(`CA certificate: ${path.join(dataDir)}`);
      expect(r.out).toMatch(/CA certificate: \S+\.pem/);
      expect(r.err).toMatch(
        /--open: no browser was opened: there is no display \(\$DISPLAY and \$WAYLAND_DISPLAY are unset\)\. Open the "Netlens UI" URL above/,
      );
      expect(r.code).toBe(0);
    } finally {
      blocker.close();
    }
  }, 60_000);

  it('--open with a display but no opener installed says so; the proxy starts on a free port', async () => {
    const r = await serveOnce(
      ['--proxy-port', '0', '--open'],
      { ...baseEnv(), DISPLAY: ':99', PATH: path.join(dataDir, 'no-bin') },
      /no browser was opened/,
    );
    expect(r.out).toMatch(/Proxy listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(r.err).toMatch(/--open: no browser was opened: "xdg-open" is not installed/);
    expect(r.code).toBe(0);
  }, 60_000);

  it('noDisplayReason: only X11/Wayland platforms without a display', () => {
    expect(noDisplayReason({}, 'linux')).toMatch(/no display/);
    expect(noDisplayReason({ DISPLAY: ':0' }, 'linux')).toBeUndefined();
    expect(noDisplayReason({ WAYLAND_DISPLAY: 'wayland-0' }, 'freebsd')).toBeUndefined();
    expect(noDisplayReason({}, 'darwin')).toBeUndefined();
    expect(noDisplayReason({}, 'win32')).toBeUndefined();
  });
});
