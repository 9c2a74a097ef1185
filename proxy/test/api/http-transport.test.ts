import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { WebSocket } from 'ws';
import { CoreService } from '../../src/api/core-service.js';
import { startHttpTransport, type HttpTransport } from '../../src/api/http-transport.js';
import type { NetlensApi, NetlensEvent } from '../../src/api/contract.js';
import { wsProtocols } from '../../src/api/ws-auth.js';
import { exchange, fakeProxy, type FakeProxy } from './helpers.js';
import { fakeBackends } from './fake-backends.js';

const TOKEN = 'test-token-0123456789';
let dir: string;
let service: CoreService;
let transport: HttpTransport;
let proxy: FakeProxy;
let base: string;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-api-'));
  const staticDir = path.join(dir, 'ui');
  fs.mkdirSync(path.join(staticDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>Netlens</title>');
  fs.writeFileSync(path.join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  proxy = fakeProxy();
  service = new CoreService({ ...fakeBackends(), dataDir: dir, startProxy: proxy.start, batchMs: 50, version: '9.9.9' });
  await service.startProxy();
  transport = await startHttpTransport({ service, token: TOKEN, staticDir });
  base = `http://127.0.0.1:${transport.port}`;
});

afterEach(async () => {
  await transport.close();
  await service.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function command(name: string, args?: unknown, headers: Record<string, string> = {}) {
  return fetch(`${base}/api/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
    body: args === undefined ? '' : JSON.stringify(args),
  });
}

async function ok<T>(name: string, args?: unknown): Promise<T> {
  const res = await command(name, args);
  const body = (await res.json()) as { ok: boolean; result: T; error?: { message: string } };
  expect(res.status, body.error?.message).toBe(200);
  return body.result;
}

/** An event socket authenticated like a Node client (Bearer header) or like the page (subprotocols), or not at all. */
function openSocket(
  headers: Record<string, string> = {},
  token: string | null = TOKEN,
  { protocols, query = '' }: { protocols?: string[]; query?: string } = {},
): Promise<{ ws: WebSocket; events: NetlensEvent[]; protocol: string } | { status: number }> {
  return new Promise((resolve) => {
    const auth: Record<string, string> = token !== null && !protocols ? { authorization: `Bearer ${token}` } : {};
    const ws = new WebSocket(`ws://127.0.0.1:${transport.port}/api/events${query}`, protocols, {
      headers: { origin: base, ...auth, ...headers },
    });
    const events: NetlensEvent[] = [];
    ws.on('message', (m) => events.push(JSON.parse(String(m))));
    ws.on('open', () => resolve({ ws, events, protocol: ws.protocol }));
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    ws.on('error', () => undefined);
  });
}

/** Raw bytes to the server; resolves with the status line (or what happened instead). */
function raw(bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(transport.port, '127.0.0.1', () => s.end(Buffer.from(bytes, 'latin1')));
    let got = '';
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('error', (e) => (got += `[${(e as NodeJS.ErrnoException).code}]`));
    s.on('close', () => resolve(got.split('\r\n')[0] || '(closed without an answer)'));
  });
}

describe('serve transport: token and origin', () => {
  it('refuses commands without the token (401) or with a wrong one (401), accepts the right one', async () => {
    const none = await fetch(`${base}/api/getStatus`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('NL_API_UNAUTHORIZED');
    expect((await command('getStatus', undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await command('getStatus')).status).toBe(200);
  });

  it('serves the page and its assets without a token and sets no cookie; the API still needs the token', async () => {
    for (const url of [`${base}/`, `${base}/?token=${TOKEN}`, `${base}/index.html`]) {
      const page = await fetch(url);
      expect(page.status, url).toBe(200);
      expect(page.headers.get('set-cookie'), url).toBeNull();
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(page.headers.get('content-security-policy')).toContain("form-action 'none'");
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    }
    const asset = await fetch(`${base}/assets/app.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await asset.text()).toBe('console.log(1)');
    expect((await fetch(`${base}/../../etc/passwd`)).status).toBe(404);
    expect((await fetch(`${base}/assets/%2e%2e/%2e%2e/%2e%2e/etc/passwd`)).status).toBe(404);
    // The address-bar token, a cookie or a query parameter do not open the API: only the Bearer header does.
    const viaQuery = await fetch(`${base}/api/getStatus?token=${TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '',
    });
    expect(viaQuery.status).toBe(401);
    const viaCookie = await fetch(`${base}/api/getStatus`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `netlens_token=${TOKEN}` },
      body: '',
    });
    expect(viaCookie.status).toBe(401);
    expect(viaQuery.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await command('getStatus')).headers.get('x-content-type-options')).toBe('nosniff');
    // Host and Origin checks still guard the page.
    expect((await fetch(`${base}/`, { headers: { origin: 'http://evil.example' } })).status).toBe(403);
  });

  it('answers malformed request targets with 400 and keeps serving (//, /\\, absolute form, bad %-escapes)', async () => {
    expect(await raw(`GET // HTTP/1.1\r\nHost: 127.0.0.1:${transport.port}\r\n\r\n`)).toBe('HTTP/1.1 404 Not Found');
    expect(await raw(`GET /\\ HTTP/1.1\r\nHost: 127.0.0.1:${transport.port}\r\n\r\n`)).toBe('HTTP/1.1 400 Bad Request');
    expect(await raw(`GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${transport.port}\r\n\r\n`)).toBe('HTTP/1.1 400 Bad Request');
    expect(await raw(`GET * HTTP/1.1\r\nHost: 127.0.0.1:${transport.port}\r\n\r\n`)).toBe('HTTP/1.1 400 Bad Request');
    expect(await raw(`GET /%E0%A4%A?token=${TOKEN} HTTP/1.1\r\nHost: 127.0.0.1:${transport.port}\r\n\r\n`)).toBe(
      'HTTP/1.1 400 Bad Request',
    );
    expect(await raw(`GET /assets/%00 HTTP/1.1\r\nHost: 127.0.0.1:${transport.port}\r\n\r\n`)).toBe('HTTP/1.1 400 Bad Request');
    expect(await raw(`POST //api/x HTTP/1.1\r\nHost: 127.0.0.1:${transport.port}\r\nContent-Length: 0\r\n\r\n`)).toBe(
      'HTTP/1.1 405 Method Not Allowed',
    );
    const upgrade =
      'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
    expect(await raw(`GET // HTTP/1.1\r\nHost: 127.0.0.1:${transport.port}\r\n${upgrade}\r\n`)).toBe('HTTP/1.1 404 Not Found');
    expect(await raw(`GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${transport.port}\r\n${upgrade}\r\n`)).toBe('HTTP/1.1 400 Bad Request');
    expect(await raw(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${transport.port}\r\n${upgrade}\r\n`)).toBe('HTTP/1.1 401 Unauthorized');
    expect(await raw('GARBAGE\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request');
    expect(await raw(`GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    // Still serving.
    expect((await command('getStatus')).status).toBe(200);
  });

  it('refuses cross-origin requests and foreign Host headers even with the token (403)', async () => {
    const evil = await command('getStatus', undefined, { origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as { error: { code: string } }).error.code).toBe('NL_API_FORBIDDEN');
    expect((await command('getStatus', undefined, { origin: base })).status).toBe(200);
    expect((await command('getStatus', undefined, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // DNS rebinding: a page on attacker.example resolving to 127.0.0.1 sends its own Host.
    const http = await import('node:http');
    const status = await new Promise<number>((resolve) => {
      http
        .request(
          {
            host: '127.0.0.1',
            port: transport.port,
            path: '/api/getStatus',
            method: 'POST',
            headers: { host: 'attacker.example', authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        )
        .end();
    });
    expect(status).toBe(403);
  });

  it("refuses event sockets without the token or from another origin; accepts the Bearer header or the page's subprotocols", async () => {
    expect(await openSocket({}, 'nope')).toEqual({ status: 401 });
    expect(await openSocket({}, null)).toEqual({ status: 401 });
    // A token in the socket's URL is not accepted: URLs end up in logs and history.
    expect(await openSocket({}, null, { query: `?token=${TOKEN}` })).toEqual({ status: 401 });
    expect(await openSocket({ origin: 'http://evil.example' })).toEqual({ status: 403 });
    expect(await openSocket({}, null, { protocols: wsProtocols('nope') })).toEqual({ status: 401 });
    const good = await openSocket();
    expect('ws' in good).toBe(true);
    if ('ws' in good) good.ws.close();
    // The page's way: the server selects "netlens" and never echoes the token back.
    const page = await openSocket({}, null, { protocols: wsProtocols(TOKEN) });
    expect(page).toMatchObject({ protocol: 'netlens' });
    if ('ws' in page) page.ws.close();
  });

  it('says which way a string argument is wrong: missing, not a string, empty, or too long with both lengths', async () => {
    const message = async (args: unknown) => {
      const res = await command('getExchange', args);
      expect(res.status).toBe(400);
      return ((await res.json()) as { error: { message: string } }).error.message;
    };
    expect(await message({})).toBe('getExchange: "id" must be a string (it is missing)');
    expect(await message({ id: 42 })).toBe('getExchange: "id" must be a string, not number');
    expect(await message({ id: '' })).toBe('getExchange: "id" must not be empty');
    expect(await message({ id: 'x'.repeat(1_000_000) })).toBe('getExchange: "id" is too long: 1,000,000 characters, at most 200');
  });

  it('closes a connection whose headers do not arrive within the header timeout (408), and keeps serving', async () => {
    const slow = await startHttpTransport({ service, token: TOKEN, headersTimeoutMs: 500 });
    try {
      const started = Date.now();
      const answer = await new Promise<string>((resolve) => {
        const s = net.connect(slow.port, '127.0.0.1', () => s.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '));
        let got = '';
        s.on('data', (d) => (got += d));
        s.on('error', () => undefined);
        s.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
      });
      expect(answer).toBe('HTTP/1.1 408 Request Timeout');
      expect(Date.now() - started).toBeLessThan(5_000);
      const auth = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };
      const res = await fetch(`http://127.0.0.1:${slow.port}/api/getStatus`, { method: 'POST', headers: auth, body: '' });
      expect(res.status).toBe(200);
    } finally {
      await slow.close();
    }
  });

  it('a command or event subscription that throws gets a 500 / close 1011 and a warning; the server keeps serving', async () => {
    const broken = {
      getStatus: () => Promise.reject(new TypeError('boom')),
      listExchanges: () => Promise.resolve([]),
      subscribe: () => {
        throw new TypeError('no events');
      },
    } as unknown as NetlensApi;
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const t = await startHttpTransport({ service: broken, token: TOKEN });
    try {
      const call = (name: string) =>
        fetch(`http://127.0.0.1:${t.port}/api/${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
          body: '',
        });
      const res = await call('getStatus');
      expect(res.status).toBe(500);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NL_INTERNAL');
      const code = await new Promise<number>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${t.port}/api/events`, { headers: { authorization: `Bearer ${TOKEN}` } });
        ws.on('close', (c) => resolve(c));
        ws.on('error', () => undefined);
      });
      expect(code).toBe(1011);
      expect((await call('listExchanges')).status).toBe(200);
      await new Promise((r) => setImmediate(r));
      expect(warnings.join('\n')).toContain('boom');
      expect(warnings.join('\n')).toContain('no events');
    } finally {
      process.off('warning', onWarning);
      await t.close();
    }
  });

  it('needs JSON commands and known names', async () => {
    expect((await command('getStatus', undefined, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await command('rmRfEverything')).status).toBe(404);
    const bad = await command('getExchange', { id: 'x404' });
    expect(bad.status).toBe(404);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('NL_NOT_FOUND');
    const invalid = await command('getExchangeBody', { id: 42 });
    expect(invalid.status).toBe(400);
  });
});

describe('serve transport: commands and events', () => {
  it('reports status with the proxy the service started', async () => {
    const s = await ok<{ version: string; proxy: { running: boolean; address: { url: string } }; exchangeCount: number }>('getStatus');
    expect(s.version).toBe('9.9.9');
    expect(s.proxy.running).toBe(true);
    expect(s.proxy.address.url).toBe('http://127.0.0.1:8080');
    const stopped = await ok<{ running: boolean }>('stopProxy');
    expect(stopped.running).toBe(false);
    const restarted = await ok<{ running: boolean; config: { http2: boolean; port: number } }>('startProxy', { http2: false, port: 18181 });
    expect(restarted.running).toBe(true);
    expect(restarted.config).toMatchObject({ http2: false, port: 18181 });
    expect(proxy.starts.at(-1)).toMatchObject({ http2: false, port: 18181 });
  });

  it('batches exchange events: 60 exchanges arrive in a few messages, each row final', async () => {
    const sock = await openSocket();
    if (!('ws' in sock)) throw new Error(`socket refused: ${sock.status}`);
    const n = 60;
    for (let i = 0; i < n; i++) {
      const x = exchange(`x${i}`);
      proxy.emit({
        type: 'request',
        exchange: {
          id: x.id,
          clientConnectionId: 'c1',
          startedDateTime: x.startedDateTime,
          transport: x.transport,
          clientProtocol: 'h2',
          method: 'GET',
          url: x.request.url,
          headers: x.request.headers,
          timestamps: { start: 1 },
        },
      });
      proxy.emit({ type: 'complete', exchange: x });
    }
    const deadline = Date.now() + 5_000;
    const rows = new Map<string, string>();
    while (Date.now() < deadline) {
      for (const e of sock.events) if (e.type === 'exchanges') for (const r of e.items) rows.set(r.id, r.state);
      if (rows.size === n) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const batches = sock.events.filter((e) => e.type === 'exchanges');
    expect(rows.size).toBe(n);
    expect([...rows.values()].every((s) => s === 'complete')).toBe(true);
    // 120 proxy events (request + complete each) were coalesced per id and flushed together.
    expect(batches.length).toBeLessThanOrEqual(3);
    sock.ws.close();

    const list = await ok<Array<{ id: string; host: string; path: string; status: number; timings: { wait: number } }>>('listExchanges');
    expect(list).toHaveLength(n);
    expect(list[0]).toMatchObject({ id: 'x0', host: 'example.test', path: '/items/x0?q=1', status: 200 });
    expect(list[0]!.timings.wait).toBe(10);
  });

  it('gives details without bodies, and bodies decoded on request', async () => {
    proxy.emit({ type: 'complete', exchange: exchange('x1', { gzip: true, body: '{"hello":"wörld"}' }) });
    proxy.emit({ type: 'error', exchange: exchange('x2', { error: true }) });
    const detail = await ok<{ response: { headers: string[][] }; request: { headers: string[][] }; clientTimings: { total: number } }>(
      'getExchange',
      { id: 'x1' },
    );
    expect(detail.response.headers).toContainEqual(['Content-Encoding', 'gzip']);
    expect(detail.request.headers[0]).toEqual([':authority', 'example.test']);
    expect(JSON.stringify(detail)).not.toContain('bytes');
    const body = await ok<{ kind: string; data: string; contentEncoding: string; mimeType: string }>('getExchangeBody', {
      id: 'x1',
      side: 'response',
    });
    expect(body).toMatchObject({ kind: 'text', data: '{"hello":"wörld"}', contentEncoding: 'gzip', mimeType: 'application/json' });
    const failed = await ok<Array<{ id: string; state: string; error?: { code: string } }>>('listExchanges');
    expect(failed.find((r) => r.id === 'x2')).toMatchObject({ state: 'error', error: { code: 'NL_UPSTREAM_REFUSED' } });
    const cleared = await ok<{ cleared: number }>('clearExchanges');
    expect(cleared.cleared).toBe(2);
    expect(await ok<unknown[]>('listExchanges')).toEqual([]);
  });

  it('imports, lists, opens, renames, exports and deletes HAR sessions', async () => {
    const har = fs.readFileSync(new URL('../../../e2e/fixtures/chrome.har', import.meta.url), 'utf8');
    const info = await ok<{ id: string; entryCount: number; name: string }>('importHar', { fileName: 'chrome.har', text: har });
    expect(info).toMatchObject({ entryCount: 3, name: 'chrome' });
    expect(await ok<unknown[]>('listSessions')).toHaveLength(1);
    const opened = await ok<{ rows: unknown[] }>('openSession', { id: info.id });
    expect(opened.rows).toHaveLength(3);
    expect((await ok<{ name: string }>('saveSession', { id: info.id, name: 'renamed' })).name).toBe('renamed');
    const exported = await ok<{ text: string }>('exportHar', { id: info.id });
    expect(JSON.parse(exported.text).log.entries).toHaveLength(3);
    expect((await ok<{ deleted: boolean }>('deleteSession', { id: info.id })).deleted).toBe(true);
    // Bodies stay in the core until shown: the rows carry none.
    const big = JSON.parse(har);
    big.log.entries[0].response.content = { size: 100_000, mimeType: 'text/plain', text: 'z'.repeat(100_000) };
    const bigInfo = await ok<{ id: string }>('importHar', { fileName: 'big.har', text: JSON.stringify(big) });
    const bigOpened = await ok<{ rows: unknown[] }>('openSession', { id: bigInfo.id });
    expect(JSON.stringify(bigOpened)).not.toContain('zzzz');
    const body = await ok<{ kind: string; data: string }>('getSessionBody', { id: bigInfo.id, index: 0, side: 'response' });
    expect(body.kind).toBe('text');
    expect(body.data).toHaveLength(100_000);
    expect((await command('getSessionBody', { id: bigInfo.id, index: 99, side: 'response' })).status).toBe(404);

    const broken = await command('importHar', { fileName: 'broken.har', text: '{"log":' });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { message: string } }).error.message).toContain('broken.har');
  });
});
