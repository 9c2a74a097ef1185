/**
 * listBreakpoints / continueBreakpoint / abortBreakpoint and the `breakpoints` event, over
 * real sockets: `netlens serve`'s HTTP transport and event WebSocket, the core's real proxy
 * with a breakpoint rule, and a local origin that echoes what it received.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { WebSocket } from 'ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CoreService } from '../../src/api/core-service.js';
import { fakeBackends } from './fake-backends.js';
import { startHttpTransport, type HttpTransport } from '../../src/api/http-transport.js';
import type { NetlensEvent, PausedBreakpoint } from '../../src/api/contract.js';
import { ErrorCodes } from '../../src/errors.js';
import { httpOrigin, type Origin } from '../proxy/harness.js';
import { holderWith, mirror } from '../rules/rules-harness.js';

const TOKEN = 'b'.repeat(43);
let dir: string;
let service: CoreService;
let transport: HttpTransport;
let origin: Origin;
let proxyPort: number;
let base: string;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-bp-api-'));
  origin = await httpOrigin(mirror);
  const rules = holderWith([{ id: 'bp', match: { path: '/pause*' }, actions: [{ type: 'breakpoint', on: 'request' }] }]);
  service = new CoreService({ ...fakeBackends(), dataDir: dir, proxy: { port: 0 }, proxyExtras: { rules }, batchMs: 20 });
  proxyPort = (await service.startProxy()).address!.port;
  transport = await startHttpTransport({ service, token: TOKEN });
  base = `http://127.0.0.1:${transport.port}`;
});

afterEach(async () => {
  await transport.close();
  await service.close();
  await origin.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function call<T>(
  name: string,
  args?: unknown,
): Promise<{ status: number; ok: boolean; result: T; error?: { code: string; message: string } }> {
  const res = await fetch(`${base}/api/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: args === undefined ? '' : JSON.stringify(args),
  });
  return { status: res.status, ...((await res.json()) as { ok: boolean; result: T; error?: { code: string; message: string } }) };
}

function openEvents(): Promise<{ ws: WebSocket; events: NetlensEvent[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${transport.port}/api/events`, {
      headers: { origin: base, authorization: `Bearer ${TOKEN}` },
    });
    const events: NetlensEvent[] = [];
    ws.on('message', (m) => events.push(JSON.parse(String(m)) as NetlensEvent));
    ws.on('open', () => resolve({ ws, events }));
    ws.on('error', reject);
  });
}

function viaProxy(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: proxyPort, path: url, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function until<T>(what: () => T | undefined | Promise<T | undefined>, label: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = await what();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${label}`);
}

const lastList = (events: NetlensEvent[]) =>
  events.filter((e) => e.type === 'breakpoints').at(-1) as { items: PausedBreakpoint[] } | undefined;

describe('breakpoint commands', () => {
  it('rules the host loaded (serve --rules FILE) are the ones in force and the ones getRules shows', async () => {
    const state = await service.getRules();
    expect(state.rules.map((r) => r.id)).toEqual(['bp']);
  });

  it('pushes the pause, lists it, and continueBreakpoint sends the edited header to the origin', async () => {
    const { ws, events } = await openEvents();
    try {
      const reply = viaProxy(`${origin.url}/pause-api`, { 'X-Before': '1' });
      const pushed = await until(() => lastList(events)?.items[0], 'a breakpoints event');
      expect(pushed).toMatchObject({ phase: 'request', method: 'GET', url: `${origin.url}/pause-api`, ruleId: 'bp' });
      const listed = await call<PausedBreakpoint[]>('listBreakpoints');
      expect(listed.result.map((p) => p.id)).toEqual([pushed.id]);

      const headers = [...pushed.headers, ['X-Edited', 'by-api']];
      expect((await call('continueBreakpoint', { id: pushed.id, edits: { headers } })).result).toEqual({ continued: true });
      const r = await reply;
      expect(JSON.parse(r.body).headers['x-edited']).toBe('by-api');
      await until(() => (lastList(events)?.items.length === 0 ? true : undefined), 'the resumed event');
      expect((await call<PausedBreakpoint[]>('listBreakpoints')).result).toEqual([]);
      // It already continued: a second continue says so with a stable code.
      const again = await call('continueBreakpoint', { id: pushed.id });
      expect(again.error?.code).toBe(ErrorCodes.NOT_FOUND);
    } finally {
      ws.close();
    }
  });

  it('abortBreakpoint answers the client 502 with X-Netlens-Error', async () => {
    const { ws, events } = await openEvents();
    try {
      const reply = viaProxy(`${origin.url}/pause-abort`);
      const pushed = await until(() => lastList(events)?.items[0], 'a breakpoints event');
      expect((await call('abortBreakpoint', { id: pushed.id })).result).toEqual({ aborted: true });
      const r = await reply;
      expect(r.status).toBe(502);
      expect(r.headers['x-netlens-error']).toBe(ErrorCodes.BREAKPOINT_ABORTED);
    } finally {
      ws.close();
    }
  });

  it('refuses malformed edits with NL_API_BAD_REQUEST and keeps the exchange paused', async () => {
    const { ws, events } = await openEvents();
    try {
      const reply = viaProxy(`${origin.url}/pause-bad`);
      const pushed = await until(() => lastList(events)?.items[0], 'a breakpoints event');
      for (const edits of [{ headers: 'x' }, { headers: [['ok', 1]] }, { status: 200 }, { url: 'ftp://x/' }, { headers: [['a b', 'v']] }]) {
        const r = await call('continueBreakpoint', { id: pushed.id, edits });
        expect(r.status, JSON.stringify(edits)).toBe(400);
        expect(r.error?.code).toBe(ErrorCodes.API_BAD_REQUEST);
      }
      expect((await call('continueBreakpoint', {})).error?.message).toMatch(/"id" must be a string/);
      expect((await call<PausedBreakpoint[]>('listBreakpoints')).result).toHaveLength(1);
      await call('continueBreakpoint', { id: pushed.id });
      expect((await reply).status).toBe(200);
    } finally {
      ws.close();
    }
  });

  it('the last event subscriber leaving (the UI closing) continues every pause unchanged', async () => {
    const { ws, events } = await openEvents();
    const reply = viaProxy(`${origin.url}/pause-release`, { 'X-Before': '1' });
    await until(() => lastList(events)?.items[0], 'a breakpoints event');
    ws.close();
    const r = await reply;
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).headers['x-before']).toBe('1');
    expect((await call<PausedBreakpoint[]>('listBreakpoints')).result).toEqual([]);
  });

  it('releaseBreakpoints (a host whose window closed while it stays subscribed) continues every pause unchanged', async () => {
    // Electron's main process stays subscribed after its window closes: only this call frees the pauses.
    const host = service.subscribe(() => undefined);
    try {
      expect(service.releaseBreakpoints()).toBe(0);
      const replies = [viaProxy(`${origin.url}/pause-a`, { 'X-Before': 'a' }), viaProxy(`${origin.url}/pause-b`, { 'X-Before': 'b' })];
      await until(async () => ((await service.listBreakpoints()).length === 2 ? true : undefined), 'two pauses');
      expect(service.releaseBreakpoints()).toBe(2);
      const [a, b] = await Promise.all(replies);
      expect([a.status, JSON.parse(a.body).headers['x-before'], b.status, JSON.parse(b.body).headers['x-before']]).toEqual([
        200,
        'a',
        200,
        'b',
      ]);
      expect(await service.listBreakpoints()).toEqual([]);
      // Later requests still pause: releasing is not switching the breakpoint off.
      const later = viaProxy(`${origin.url}/pause-c`);
      await until(async () => ((await service.listBreakpoints()).length === 1 ? true : undefined), 'a new pause');
      expect(service.releaseBreakpoints()).toBe(1);
      expect((await later).status).toBe(200);
    } finally {
      host();
    }
  });
});
