/**
 * Sessions → Serve and Resend over the real proxy (api/replay-service.ts):
 * Serve starts a replay proxy of its own with live counts until stopped;
 * Resend returns typed diff rows. Bad inputs next to good ones.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreService } from '../../src/api/core-service.js';
import type { NetlensEvent, ReplayServerStatus } from '../../src/api/contract.js';
import { curl, httpOrigin, tempDataDir, type Origin } from '../proxy/harness.js';
import { pageHandler, recordHar, type PageState } from './helpers.js';
import { resend } from '../../src/replay/client-replay.js';
import { loadReplayHar } from '../../src/replay/load.js';
import { fakeBackends } from '../api/fake-backends.js';

const dataDir = tempDataDir();
const harFile = path.join(dataDir, 's.har');
const state: PageState = { counter: 0, bodies: { '/x': 'recorded x', '/y': 'recorded y' }, status: {} };
let origin: Origin;

beforeAll(async () => {
  origin = await httpOrigin(pageHandler(state));
  await recordHar(dataDir, harFile, 2, async (proxy) => {
    for (const p of ['/x', '/y']) expect((await curl(['-x', proxy.address.url, origin.url + p])).stdout).toMatch(/^recorded/);
  });
}, 30_000);

afterAll(async () => {
  await origin.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const service = () => new CoreService({ ...fakeBackends(), dataDir, proxy: { port: 0 }, batchMs: 10 });
const importS = (s: CoreService, text = fs.readFileSync(harFile, 'utf8'), fileName = 's.har') => s.importHar({ fileName, text });

async function until<T>(get: () => T | Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + 5000;
  let v = await get();
  while (!ok(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 20));
    v = await get();
  }
  return v;
}

describe('Serve a session (startReplayServer / replayServerStatus / stopReplayServer)', () => {
  it('serves the recording on its own port with live counts, beside the capture proxy, until stopped', async () => {
    const s = service();
    const events: ReplayServerStatus[] = [];
    s.subscribe((e: NetlensEvent) => e.type === 'replay-server' && events.push(e.status));
    try {
      const info = await importS(s);
      const capture = await s.startProxy();
      expect(await s.replayServerStatus()).toMatchObject({ running: false, served: 0 });

      const started = await s.startReplayServer({ id: info.id });
      expect(started).toMatchObject({
        running: true,
        session: { id: info.id, name: 's' },
        extra: 'forward',
        recorded: 2,
        served: 0,
        unused: 2,
      });
      expect(started.address!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(started.address!.url).not.toBe(capture.address!.url);
      expect(events.at(-1)?.running).toBe(true);

      state.bodies['/x'] = 'changed x!';
      expect((await curl(['-x', started.address!.url, `${origin.url}/x`])).stdout).toBe('recorded x');
      // Not in the recording: forwarded to the network (the default policy).
      expect((await curl(['-x', started.address!.url, `${origin.url}/elsewhere`])).stdout).toBe('body of /elsewhere');
      const counted = await until(
        () => events.at(-1),
        (e) => e?.served === 1 && e.unmatched.forward === 1,
      );
      expect(counted).toMatchObject({ running: true, served: 1, unused: 1, unmatched: { forward: 1, '404': 0, kill: 0 } });
      expect(counted!.unmatchedRequests).toEqual([{ method: 'GET', url: `${origin.url}/elsewhere`, action: 'forward' }]);
      // The capture proxy still answers from the network.
      expect((await curl(['-x', capture.address!.url, `${origin.url}/x`])).stdout).toBe('changed x!');
      expect((await s.getStatus()).proxy.running).toBe(true);

      const stopped = await s.stopReplayServer();
      expect(stopped).toMatchObject({ running: false, served: 1, session: { name: 's' } });
      expect(stopped.address).toBeUndefined();
      expect(events.at(-1)?.running).toBe(false);
      expect((await curl(['-x', started.address!.url, `${origin.url}/x`])).code).not.toBe(0);
      expect(await s.replayServerStatus()).toMatchObject({ running: false, served: 1 });
    } finally {
      state.bodies['/x'] = 'recorded x';
      await s.close();
    }
  }, 30_000);

  it('refuses an unknown session, a second server, a stop with none running, a port in use and bad arguments', async () => {
    const s = service();
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      const info = await importS(s);
      const notRunning = { code: 'NL_REPLAY_NOT_RUNNING', message: expect.stringMatching(/No replay server is running/) };
      await expect(s.stopReplayServer()).rejects.toMatchObject(notRunning);
      await expect(s.startReplayServer({ id: 'nope' })).rejects.toMatchObject({ code: 'NL_NOT_FOUND' });
      await expect(s.startReplayServer({ id: info.id, port: taken })).rejects.toMatchObject({
        code: 'NL_PORT_IN_USE',
        message: expect.stringMatching(new RegExp(`"s" could not start: port ${taken} is already in use\\. Choose another port`)),
      });
      const id = info.id;
      const bads = [{ id, port: -1 }, { id, port: 1.5 }, { id, port: '80' }, { id, extra: 'drop' }, { id: '' }, { id: 7 }, 'x', [1]];
      for (const bad of bads) {
        await expect(s.startReplayServer(bad as never), JSON.stringify(bad)).rejects.toMatchObject({ code: 'NL_API_BAD_REQUEST' });
      }
      expect((await s.replayServerStatus()).running).toBe(false);

      const other = await importS(s, fs.readFileSync(harFile, 'utf8'), 'other.har');
      const first = await s.startReplayServer({ id: info.id, extra: '404' });
      expect(first).toMatchObject({ running: true, extra: '404' });
      await expect(s.startReplayServer({ id: other.id })).rejects.toMatchObject({
        code: 'NL_REPLAY_RUNNING',
        message: expect.stringMatching(/already serves "s" on http:\/\/127\.0\.0\.1:\d+: one replay server at a time\. Stop it first\./),
      });
      expect((await s.replayServerStatus()).address).toEqual(first.address);
      const unmatched = await curl(['-x', first.address!.url, '-D', '-', `${origin.url}/not-recorded`]);
      expect(unmatched.stdout).toMatch(/^HTTP\/1\.1 404/);
      expect(
        await until(
          () => s.replayServerStatus(),
          (st) => st.unmatched['404'] === 1,
        ),
      ).toMatchObject({ unmatched: { '404': 1 } });
      await s.stopReplayServer();
      await expect(s.stopReplayServer()).rejects.toMatchObject({ code: 'NL_REPLAY_NOT_RUNNING' });
      // After a stop another session can be served; two starts at once (a double click) start one server.
      const both = await Promise.allSettled([s.startReplayServer({ id: other.id }), s.startReplayServer({ id: info.id })]);
      expect(both[0]).toMatchObject({ status: 'fulfilled', value: { running: true, session: { name: 'other' } } });
      expect(both[1]).toMatchObject({ status: 'rejected', reason: { code: 'NL_REPLAY_RUNNING' } });
    } finally {
      blocker.close();
      await s.close();
    }
    // close() stopped the server.
    expect((await s.replayServerStatus()).running).toBe(false);
  }, 30_000);
});

describe('Resend a session (resendSession)', () => {
  it('returns one typed row per request: changed, unchanged and failed, through the capture proxy or directly', async () => {
    const s = service();
    try {
      const har = JSON.parse(fs.readFileSync(harFile, 'utf8'));
      // A third request whose origin is gone: it fails on resend.
      const dead = net.createServer();
      await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
      const deadPort = (dead.address() as net.AddressInfo).port;
      await new Promise((r) => dead.close(r));
      har.log.entries.push({ ...har.log.entries[1], request: { ...har.log.entries[1].request, url: `http://127.0.0.1:${deadPort}/gone` } });
      const info = await importS(s, JSON.stringify(har), 'three.har');
      state.bodies['/x'] = 'changed x!';

      const direct = await s.resendSession({ id: info.id });
      expect(direct.via).toBe('direct');
      expect(direct.session).toEqual({ id: info.id, name: 'three' });
      expect(direct.summary).toEqual({ total: 3, changed: 1, failed: 1, slower: expect.any(Number) });
      const [x, y, gone] = direct.rows;
      const same = { status: 200, size: 10 };
      expect(x).toMatchObject({ index: 0, method: 'GET', url: `${origin.url}/x`, before: same, after: same, changes: ['body'] });
      expect(y).toMatchObject({ index: 1, url: `${origin.url}/y`, changes: [] });
      expect(y.after!.time).toBeGreaterThanOrEqual(0);
      expect(gone).toMatchObject({ index: 2, changes: ['failed'], error: { code: 'NL_UPSTREAM_REFUSED' } });
      expect(gone.after).toBeUndefined();

      await s.startProxy();
      state.status['/y'] = 500;
      const viaProxy = await s.resendSession({ id: info.id });
      expect(viaProxy.via).toBe('proxy');
      expect(viaProxy.rows[1]).toMatchObject({ before: { status: 200 }, after: { status: 500 }, changes: ['status'] });
      // Through the capture proxy: the resent requests are in the live capture.
      const rows = await until(
        () => s.listExchanges(),
        (r) => r.some((e) => e.path === '/y' && e.status === 500),
      );
      expect(rows.some((e) => e.path === '/y' && e.status === 500)).toBe(true);

      await expect(s.resendSession({ id: 'nope' })).rejects.toMatchObject({ code: 'NL_NOT_FOUND' });
      await expect(s.resendSession({} as never)).rejects.toMatchObject({ code: 'NL_API_BAD_REQUEST' });
      // One resend at a time.
      const both = await Promise.allSettled([s.resendSession({ id: info.id }), s.resendSession({ id: info.id })]);
      expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(both.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'NL_REPLAY_RUNNING' } });
    } finally {
      state.bodies['/x'] = 'recorded x';
      delete state.status['/y'];
      await s.close();
    }
  }, 60_000);

  it("counts a Netlens proxy's 502 with X-Netlens-Error as failed, and any other 502 as a changed status", async () => {
    // A stand-in for the proxy: the first request gets the proxy's failure answer, the second an origin's plain 502.
    let n = 0;
    const fake = http.createServer((_req, res) => {
      const why = 'NL_UPSTREAM_TLS: untrusted certificate; use --upstream-ca';
      if (n++ === 0) res.writeHead(502, { 'X-Netlens-Error': 'NL_UPSTREAM_TLS', 'Content-Type': 'text/plain' }).end(`${why}\n`);
      else res.writeHead(502, { 'Content-Type': 'text/plain' }).end('bad gateway');
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    try {
      const { entries } = await loadReplayHar(harFile);
      const proxyUrl = `http://127.0.0.1:${(fake.address() as net.AddressInfo).port}`;
      const { rows } = await resend(entries, { proxyUrl });
      const why = 'NL_UPSTREAM_TLS: untrusted certificate; use --upstream-ca';
      expect(rows[0]).toMatchObject({ changes: ['failed'], error: { code: 'NL_UPSTREAM_TLS', message: why } });
      expect(rows[0].after).toBeUndefined();
      expect(rows[1]).toMatchObject({ after: { status: 502 }, changes: ['status', 'size'] });
    } finally {
      fake.close();
    }
  });

  it('says why a session with nothing to replay cannot be served or resent', async () => {
    const s = service();
    try {
      const har = JSON.parse(fs.readFileSync(harFile, 'utf8'));
      for (const e of har.log.entries) e.response = { ...e.response, status: 0 };
      const info = await importS(s, JSON.stringify(har), 'failed.har');
      await expect(s.startReplayServer({ id: info.id })).rejects.toMatchObject({ code: 'NL_REPLAY_NO_RESPONSES' });
      await expect(s.resendSession({ id: info.id })).rejects.toMatchObject({ code: 'NL_REPLAY_NO_RESPONSES' });
      expect((await s.replayServerStatus()).running).toBe(false);
    } finally {
      await s.close();
    }
  });
});
