import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../src/browser/launch.js';
import { capturePage } from '../../src/browser/capture.js';
import { chromePath } from './chrome-available.js';
import { alive } from '../proxy/harness.js';

const profileDirs = () =>
  fs
    .readdirSync(os.tmpdir())
    .filter((d) => d.startsWith(`netlens-chrome-${process.pid}-`))
    .sort();
/** Chrome's process-singleton directory of a running browser's profile (its SingletonSocket's), or undefined. */
const singletonOf = (userDataDir: string) => {
  try {
    return fs.readlinkSync(`${userDataDir}/SingletonSocket`).replace(/\/SingletonSocket$/, '');
  } catch {
    return undefined;
  }
};

/** A page with 3 images, one added 300 ms after load, and a resource that fails. */
let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/') {
      res.setHeader('content-type', 'text/html');
      res.end(`<link rel="icon" href="data:,"><img src="/a.png"><img src="/b.png"><img src="/c.png">
        <script>addEventListener('load', () => setTimeout(() => { const i = new Image(); i.src = '/late.png'; document.body.append(i); }, 300));</script>`);
    } else if (req.url === '/broken') {
      res.setHeader('content-type', 'text/html');
      res.end('<link rel="icon" href="data:,"><img src="/a.png"><img src="/reset.png">');
    } else if (req.url === '/bad-gateway') {
      // What an intercepting proxy answers when it cannot verify the origin: the page's images never load.
      res.writeHead(502, 'Bad Gateway', { 'content-type': 'text/html' });
      res.end('<link rel="icon" href="data:,">upstream certificate verify failed');
    } else if (req.url === '/stall') {
      // Never answers (until the server closes): navigation must still time out.
    } else if (req.url === '/reset.png') {
      req.socket.destroy(); // the browser sees a failed request, which chrome-har-capturer drops
    } else {
      res.setHeader('content-type', 'image/gif');
      res.end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

describe.skipIf(!chromePath)('launchBrowser + capturePage (real Chromium)', () => {
  it('launches with a fresh profile and leaves no process or profile behind after close()', async () => {
    const before = profileDirs();
    const b = await launchBrowser({ chromePath });
    expect(alive(b.pid)).toBe(true);
    expect(fs.existsSync(b.userDataDir)).toBe(true);
    expect(profileDirs()).toContain(b.userDataDir.split('/').pop());
    const version = (await (await fetch(`http://127.0.0.1:${b.port}/json/version`)).json()) as { webSocketDebuggerUrl: string };
    expect(version.webSocketDebuggerUrl).toBe(b.wsEndpoint);
    // Captive-portal checks (a Google URL fetched through the proxy on slow loads) are off in the profile.
    const prefs = JSON.parse(fs.readFileSync(`${b.userDataDir}/Default/Preferences`, 'utf8'));
    expect(prefs.alternate_error_pages?.enabled).toBe(false);
    // Chrome's singleton socket lives in a directory of its own under TMPDIR, which a signalled Chrome leaves behind.
    const singleton = singletonOf(b.userDataDir);
    expect(singleton).toMatch(new RegExp(`^${os.tmpdir()}/(org\\.chromium\\.Chromium|com\\.google\\.Chrome)`));
    expect(fs.existsSync(singleton!)).toBe(true);
    await b.close();
    await b.close(); // idempotent
    expect(alive(b.pid)).toBe(false);
    expect(fs.existsSync(b.userDataDir)).toBe(false);
    expect(profileDirs()).toEqual(before);
    expect(fs.existsSync(singleton!)).toBe(false);
  });

  it('runs the browser, and the processes it forks, at the lower CPU priority asked for (--browser-nice)', async () => {
    const b = await launchBrowser({ chromePath, niceness: 7 });
    try {
      expect(b.priority?.niceness).toBe(7);
      if (b.priority?.scope === 'autogroup') {
        // Linux with autogroup: one group for the browser's whole session, renderers and GPU process included.
        const group = fs.readFileSync(`/proc/${b.pid}/autogroup`, 'utf8');
        expect(group).toMatch(/ nice 7\b/);
        const helpers = fs
          .readdirSync('/proc')
          .filter((d) => /^\d+$/.test(d) && d !== String(b.pid))
          .filter((d) => {
            try {
              return Number(fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === b.pid;
            } catch {
              return false;
            }
          });
        expect(helpers.length).toBeGreaterThan(0);
        for (const h of helpers) expect(fs.readFileSync(`/proc/${h}/autogroup`, 'utf8')).toBe(group);
      } else {
        expect(os.getPriority(b.pid)).toBe(7);
      }
    } finally {
      await b.close();
    }
    // Without the option, the normal priority. (Chrome raises its own browser threads when it may: as root its
    // main thread runs at nice -8, so the process's own value says nothing about ours.)
    const normal = await launchBrowser({ chromePath });
    try {
      expect(normal.priority).toBeUndefined();
      if (fs.existsSync(`/proc/${normal.pid}/autogroup`))
        expect(fs.readFileSync(`/proc/${normal.pid}/autogroup`, 'utf8')).toMatch(/ nice 0\b/);
    } finally {
      await normal.close();
    }
  });

  it('cleans up when aborted during launch', async () => {
    const before = profileDirs();
    const ac = new AbortController();
    const p = launchBrowser({ chromePath, signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    await expect(p).rejects.toMatchObject({ code: 'NL_LAB_ABORTED' });
    expect(profileDirs()).toEqual(before);
  });

  it('waits for network idle after load, so late requests are in the HAR', async () => {
    const b = await launchBrowser({ chromePath });
    try {
      const c = await capturePage(b, { url: `${base}/`, quietMs: 600, expectedRequests: 5 });
      const urls = c.har.log.entries.map((e) => new URL(e.request.url).pathname);
      expect(urls).toEqual(expect.arrayContaining(['/', '/a.png', '/b.png', '/c.png', '/late.png']));
      expect(c.loadMs).toBeGreaterThan(0);
      // The late image started after load: the run's span covers it.
      expect(c.loadMs).toBeGreaterThan(c.har.log.pages?.[0]?.pageTimings?.onLoad ?? 0);
      expect(c.har.log.entries.every((e) => e.response.httpVersion === 'http/1.1')).toBe(true);
    } finally {
      await b.close();
    }
  });

  it('fails a run whose HAR is shorter than the page (failed requests are dropped)', async () => {
    const b = await launchBrowser({ chromePath });
    try {
      const err = await capturePage(b, { url: `${base}/broken`, quietMs: 200, expectedRequests: 3 }).catch((e) => e);
      expect(err).toMatchObject({ code: 'NL_PAGE_LOAD' });
      expect(err.message).toMatch(/has 2 entries, fewer than the 3.*reset\.png/);
    } finally {
      await b.close();
    }
  });

  it('names the status of the page itself when it failed (e.g. a proxy answering 502)', async () => {
    const b = await launchBrowser({ chromePath });
    try {
      const err = await capturePage(b, { url: `${base}/bad-gateway`, quietMs: 200, expectedRequests: 3 }).catch((e) => e);
      expect(err).toMatchObject({ code: 'NL_PAGE_LOAD' });
      expect(err.message).toMatch(/has 1 entry, fewer than the 3 the page loads; the page itself answered 502 Bad Gateway/);
    } finally {
      await b.close();
    }
  });

  it('times out a navigation whose server never answers (and can be cancelled)', async () => {
    const b = await launchBrowser({ chromePath });
    try {
      const err = await capturePage(b, { url: `${base}/stall`, quietMs: 100, timeoutMs: 1500 }).catch((e) => e);
      expect(err.code).toBe('NL_PAGE_LOAD');
      expect(err.message).toMatch(/did not finish loading within 1500 ms \(no response head yet\)/);
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 300);
      await expect(capturePage(b, { url: `${base}/stall?2`, timeoutMs: 20_000, signal: ac.signal })).rejects.toMatchObject({
        code: 'NL_LAB_ABORTED',
      });
    } finally {
      await b.close();
    }
  });

  it('reports a navigation error clearly', async () => {
    const b = await launchBrowser({ chromePath });
    try {
      // A port that was free a moment ago: nothing listens there.
      const probe = http.createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      const closedPort = (probe.address() as AddressInfo).port;
      await new Promise<void>((r) => probe.close(() => r()));
      const err = await capturePage(b, { url: `http://127.0.0.1:${closedPort}/`, quietMs: 100 }).catch((e) => e);
      expect(err.code).toBe('NL_PAGE_LOAD');
      expect(err.message).toMatch(/did not load: net::ERR_CONNECTION_REFUSED/);
    } finally {
      await b.close();
    }
  });
});

describe.skipIf(!chromePath)('browser lifetime is tied to ours', () => {
  it('Chrome exits when the Node process that launched it is killed with SIGKILL', async () => {
    const { spawn } = await import('node:child_process');
    const path = await import('node:path');
    // A separate Node process launches Chrome, prints its PID, then is SIGKILLed (no exit hooks run).
    const script = `
      import fs from 'node:fs';
      import { launchBrowser } from ${JSON.stringify(path.resolve('proxy/src/browser/launch.ts'))};
      const b = await launchBrowser({ chromePath: ${JSON.stringify(chromePath)} });
      const singleton = fs.readlinkSync(b.userDataDir + '/SingletonSocket').replace(/\\/SingletonSocket$/, '');
      console.log(JSON.stringify({ pid: b.pid, dir: b.userDataDir, singleton }));
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c) => {
        out += c;
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      child.once('exit', (code) => reject(new Error(`launcher exited early (${code})`)));
    });
    const { pid, dir, singleton } = JSON.parse(line) as { pid: number; dir: string; singleton: string };
    expect(fs.existsSync(singleton)).toBe(true);
    expect(alive(pid)).toBe(true);
    child.kill('SIGKILL');
    // Bounded wait for Chrome to notice its DevTools pipe closed.
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
    // Its profile is swept by the next launch (its owner is dead), with Chrome's singleton directory.
    const b = await launchBrowser({ chromePath });
    await b.close();
    expect(fs.existsSync(dir)).toBe(false);
    expect(fs.existsSync(singleton)).toBe(false);
  }, 30_000);
});
