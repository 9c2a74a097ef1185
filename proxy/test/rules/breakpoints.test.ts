/**
 * The breakpoint action over real sockets: a request or response paused in the registry,
 * edited, continued, aborted, timed out or released; other exchanges flowing meanwhile
 * (another HTTP/1.1 connection, another HTTP/2 stream of the same connection).
 */
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import tls from 'node:tls';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { httpOrigin, httpsOrigin, loadOrCreateCA, tempDataDir, testProxy, type Origin, type TestProxy } from '../proxy/harness.js';
import type { CertificateAuthority } from '../../src/tls/ca.js';
import type { Rule } from '../../src/rules/types.js';
import { Breakpoints, type PausedExchange } from '../../src/rules/breakpoints.js';
import { ErrorCodes } from '../../src/errors.js';
import { harOf, holderWith, mirror } from './rules-harness.js';

let dataDir: string;
let ca: CertificateAuthority;
let plain: Origin;
let h2: Origin;
let tp: TestProxy;
const holder = holderWith([]);
const bp = new Breakpoints();
const use = (rules: Rule[]) => holder.set(holderWith(rules).file);
const pauseOn = (on: 'request' | 'response', timeoutMs?: number): Rule[] => [
  { id: 'bp', name: 'stop here', match: { path: '/pause*' }, actions: [{ type: 'breakpoint', on, ...(timeoutMs ? { timeoutMs } : {}) }] },
];

beforeAll(async () => {
  dataDir = tempDataDir();
  ca = loadOrCreateCA(dataDir);
  plain = await httpOrigin(mirror);
  h2 = await httpsOrigin(ca, { h2: true }, mirror);
  tp = await testProxy({ dataDir, rules: holder, breakpoints: bp });
});
// A failed test must not leave a pause behind for the next one.
afterEach(() => bp.releaseAll());
afterAll(async () => {
  await tp.stop();
  await plain.close();
  await h2.close();
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP/1.1 request through the proxy on its own connection (absolute-form target). */
function viaProxy(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: tp.proxy.address.port, path: url, method: opts.method ?? 'GET', headers: opts.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function waitPaused(n: number): Promise<PausedExchange[]> {
  for (let i = 0; i < 500 && bp.list().length < n; i++) await new Promise((r) => setTimeout(r, 10));
  expect(bp.list()).toHaveLength(n);
  return bp.list();
}

/** An HTTP/2 session to the h2 origin through an intercepted CONNECT tunnel of the proxy. */
async function h2Session(): Promise<http2.ClientHttp2Session> {
  const u = new URL(h2.url);
  const socket = await new Promise<import('node:net').Socket>((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port: tp.proxy.address.port,
      method: 'CONNECT',
      path: `${u.hostname}:${u.port}`,
      agent: false,
    });
    req.on('connect', (_res, s) => resolve(s));
    req.on('error', reject);
    req.end();
  });
  const caPem = fs.readFileSync(ca.certPath);
  return http2.connect(h2.url, {
    createConnection: () => tls.connect({ socket, servername: 'localhost', ALPNProtocols: ['h2'], ca: caPem }),
  });
}

function h2Get(s: http2.ClientHttp2Session, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const st = s.request({ ':path': path, ...headers });
    let status = 0;
    let hdrs: http.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    st.on('response', (h) => {
      status = Number(h[':status']);
      hdrs = h as http.IncomingHttpHeaders;
    });
    st.on('data', (c: Buffer) => chunks.push(c));
    st.on('end', () => resolve({ status, headers: hdrs, body: Buffer.concat(chunks).toString('utf8') }));
    st.on('error', reject);
    st.end();
  });
}

const exchangeFor = async (path: string) => {
  for (let i = 0; i < 200; i++) {
    const x = tp.exchanges().find((e) => e.request.url.includes(path));
    if (x) return x;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no exchange for ${path}`);
};

describe('breakpoint on request (HTTP/1.1)', () => {
  it('pauses before the upstream, lets another connection flow, and sends the edited headers and body', async () => {
    use(pauseOn('request'));
    const paused = viaProxy(`${plain.url}/pause-edit`, {
      method: 'POST',
      headers: { 'X-Keep': 'a', 'Content-Type': 'text/plain' },
      body: 'hello',
    });
    const [item] = await waitPaused(1);
    expect(item).toMatchObject({
      phase: 'request',
      method: 'POST',
      url: `${plain.url}/pause-edit`,
      body: 'hello',
      bodyCut: false,
      ruleId: 'bp',
    });
    expect(item!.headers).toContainEqual(['X-Keep', 'a']);
    // Paused side by side: another connection is not held up.
    const other = await viaProxy(`${plain.url}/free`);
    expect(other.status).toBe(200);
    expect(bp.list()).toHaveLength(1);

    const headers = item!.headers.filter(([k]) => k.toLowerCase() !== 'x-keep');
    bp.continue(item!.id, { headers: [...headers, ['X-Edited', 'yes']], body: 'changed body' });
    const r = await paused;
    const seen = JSON.parse(r.body) as { headers: Record<string, string>; body: string };
    expect(seen.headers['x-edited']).toBe('yes');
    expect(seen.headers['x-keep']).toBeUndefined();
    expect(seen.body).toBe('changed body');
    expect(seen.headers['content-length']).toBe('12');
    const x = await exchangeFor('/pause-edit');
    expect(harOf(x)._rules).toEqual([{ id: 'bp', name: 'stop here', actions: ['breakpoint:request'] }]);
    expect(harOf(x)._breakpoint).toMatchObject({ edited: true, outcome: 'continued' });
    expect((harOf(x)._breakpoint as { pausedMs: number }).pausedMs).toBeGreaterThanOrEqual(0);
  });

  it('a body over 1 MiB is shown as cut and forwarded whole when it continues', async () => {
    use(pauseOn('request'));
    const big = 'x'.repeat(1024 * 1024 + 5000);
    const paused = viaProxy(`${plain.url}/pause-big`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: big });
    const [item] = await waitPaused(1);
    expect(item).toMatchObject({ bodyCut: true, body: '' });
    expect(() => bp.continue(item!.id, { body: 'small' })).toThrow(/cannot be edited/);
    bp.continue(item!.id);
    expect(JSON.parse((await paused).body).body).toBe(big);
  });

  it('pauses a request a mock answers, before it answers', async () => {
    use([
      {
        id: 'bpm',
        match: { path: '/pause-mock' },
        actions: [
          { type: 'breakpoint', on: 'request' },
          { type: 'mock', status: 418, body: 'tea' },
        ],
      },
    ]);
    const paused = viaProxy(`${plain.url}/pause-mock`);
    const [item] = await waitPaused(1);
    expect(item!.ruleId).toBe('bpm');
    bp.continue(item!.id);
    expect(await paused).toMatchObject({ status: 418, body: 'tea' });
  });

  it('edits the URL the request goes to', async () => {
    use(pauseOn('request'));
    const paused = viaProxy(`${plain.url}/pause-url`);
    const [item] = await waitPaused(1);
    bp.continue(item!.id, { url: `${plain.url}/elsewhere?q=1` });
    expect(JSON.parse((await paused).body).url).toBe('/elsewhere?q=1');
  });

  it('abort: the client gets a 502 with X-Netlens-Error, recorded with the code; nothing reaches the origin', async () => {
    use(pauseOn('request'));
    const before = plain.connections;
    const paused = viaProxy(`${plain.url}/pause-abort`);
    const [item] = await waitPaused(1);
    bp.abort(item!.id);
    const r = await paused;
    expect(r.status).toBe(502);
    expect(r.headers['x-netlens-error']).toBe(ErrorCodes.BREAKPOINT_ABORTED);
    expect(plain.connections).toBe(before);
    const x = await exchangeFor('/pause-abort');
    expect(x.error?.code).toBe(ErrorCodes.BREAKPOINT_ABORTED);
    expect(harOf(x)._breakpoint).toMatchObject({ edited: false, outcome: 'aborted' });
  });

  it('continues unchanged by itself when the timeout passes', async () => {
    use(pauseOn('request', 150));
    const r = await viaProxy(`${plain.url}/pause-timeout`, { headers: { 'X-Keep': 'a' } });
    expect(JSON.parse(r.body).headers['x-keep']).toBe('a');
    const x = await exchangeFor('/pause-timeout');
    expect(harOf(x)._breakpoint).toMatchObject({ edited: false, outcome: 'timeout' });
    expect(x.breakpoint!.pausedMs).toBeGreaterThanOrEqual(100);
  });

  it('continues unchanged when the last watcher (the UI) goes away', async () => {
    use(pauseOn('request'));
    const leaveA = bp.watch();
    const leaveB = bp.watch();
    const paused = viaProxy(`${plain.url}/pause-release`);
    await waitPaused(1);
    leaveA();
    await new Promise((r) => setTimeout(r, 50));
    expect(bp.list()).toHaveLength(1);
    leaveB();
    expect((await paused).status).toBe(200);
    expect((await exchangeFor('/pause-release')).breakpoint?.outcome).toBe('released');
  });

  it('records the client closing while paused as client-aborted', async () => {
    use(pauseOn('request'));
    const req = http.request({ host: '127.0.0.1', port: tp.proxy.address.port, path: `${plain.url}/pause-gone`, agent: false });
    req.on('error', () => {});
    req.end();
    await waitPaused(1);
    req.destroy();
    const x = await exchangeFor('/pause-gone');
    for (let i = 0; i < 100 && !x.error; i++) await new Promise((r) => setTimeout(r, 10));
    expect(x.error?.code).toBe(ErrorCodes.CLIENT_ABORTED);
    expect(bp.list()).toHaveLength(0);
  });
});

describe('breakpoint on response', () => {
  it('HTTP/1.1: shows the origin response and sends the edited status, header and body', async () => {
    use(pauseOn('response'));
    const paused = viaProxy(`${plain.url}/pause-res`);
    const [item] = await waitPaused(1);
    expect(item).toMatchObject({ phase: 'response', status: 200, bodyCut: false });
    expect(JSON.parse(item!.body).url).toBe('/pause-res');
    bp.continue(item!.id, { status: 201, headers: [...item!.headers, ['X-Res-Edit', '1']], body: 'new body' });
    const r = await paused;
    expect(r.status).toBe(201);
    expect(r.headers['x-res-edit']).toBe('1');
    expect(r.body).toBe('new body');
    const x = await exchangeFor('/pause-res');
    expect(harOf(x)._breakpoint).toMatchObject({ edited: true, outcome: 'continued' });
  });

  it('shows a gzip body decoded and sends it decoded once edited', async () => {
    const zipped = await httpOrigin((_req, res) => {
      (res as http.ServerResponse).writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(zlib.gzipSync('hello from origin'));
    });
    try {
      use(pauseOn('response'));
      const paused = viaProxy(`${zipped.url}/pause-gzip`);
      const [item] = await waitPaused(1);
      expect(item).toMatchObject({ body: 'hello from origin', bodyCut: false });
      bp.continue(item!.id, { body: 'hello edited' });
      const r = await paused;
      expect(r.body).toBe('hello edited');
      expect(r.headers['content-encoding']).toBeUndefined();
      expect(r.headers['content-length']).toBe('12');
    } finally {
      await zipped.close();
    }
  });

  it('does not decode a body past what a rewrite holds: a brotli bomb pauses cut and goes on unchanged', async () => {
    // ~30 KiB of brotli inflating to 64 MiB: it was decoded whole, at once, and shown; a larger one could take the process.
    const bomb = zlib.brotliCompressSync(Buffer.alloc(64 * 1024 * 1024, 'a'), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
    const bombs = await httpOrigin((_req, res) => {
      (res as http.ServerResponse).writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'br' });
      res.end(bomb);
    });
    const atOnce = vi.spyOn(zlib, 'brotliDecompressSync');
    try {
      use(pauseOn('response'));
      const paused = viaProxy(`${bombs.url}/pause-bomb`);
      const [item] = await waitPaused(1);
      expect(item).toMatchObject({ body: '', bodyCut: true });
      bp.continue(item!.id);
      const r = await paused;
      expect(r.headers['content-encoding']).toBe('br');
      expect(r.body).toBe(bomb.toString('utf8'));
      // Decoded on the thread pool (bounded), never with the *Sync call that holds the event loop.
      expect(atOnce).not.toHaveBeenCalled();
    } finally {
      atOnce.mockRestore();
      await bombs.close();
    }
  });

  it('HTTP/1.1: abort sends a 502 instead of the origin response', async () => {
    use(pauseOn('response'));
    const paused = viaProxy(`${plain.url}/pause-res-abort`);
    const [item] = await waitPaused(1);
    bp.abort(item!.id);
    const r = await paused;
    expect(r.status).toBe(502);
    expect(r.headers['x-netlens-error']).toBe(ErrorCodes.BREAKPOINT_ABORTED);
    expect((await exchangeFor('/pause-res-abort')).error?.code).toBe(ErrorCodes.BREAKPOINT_ABORTED);
  });
});

describe('breakpoint over HTTP/2', () => {
  it('a paused stream does not hold up another stream of the same connection; edits reach the origin', async () => {
    use(pauseOn('request'));
    const s = await h2Session();
    try {
      const paused = h2Get(s, '/pause-h2', { 'x-keep': 'a' });
      const [item] = await waitPaused(1);
      expect(item!.url).toBe(`${h2.url}/pause-h2`);
      const other = await h2Get(s, '/free-h2');
      expect(other.status).toBe(200);
      expect(bp.list()).toHaveLength(1);
      bp.continue(item!.id, { headers: [...item!.headers, ['x-edited', 'h2']] });
      const r = await paused;
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body).headers['x-edited']).toBe('h2');
      const x = await exchangeFor('/pause-h2');
      expect(x.clientProtocol).toBe('h2');
      expect(harOf(x)._breakpoint).toMatchObject({ edited: true, outcome: 'continued' });
    } finally {
      s.close();
    }
  });

  it('response abort answers the stream with a 502', async () => {
    use(pauseOn('response'));
    const s = await h2Session();
    try {
      const paused = h2Get(s, '/pause-h2-abort');
      const [item] = await waitPaused(1);
      bp.abort(item!.id);
      const r = await paused;
      expect(r.status).toBe(502);
      expect(r.headers['x-netlens-error']).toBe(ErrorCodes.BREAKPOINT_ABORTED);
    } finally {
      s.close();
    }
  });

  // Node's compatibility response says writableFinished once its stream closes, reset or not: the pause
  // used to stay in the list (and the UI) for a client that had cancelled its stream.
  it('a stream the client cancels while paused leaves the list and is recorded as client-aborted', async () => {
    use(pauseOn('request'));
    const s = await h2Session();
    try {
      const st = s.request({ ':path': '/pause-h2-gone' });
      st.on('error', () => {});
      st.end();
      await waitPaused(1);
      st.close(http2.constants.NGHTTP2_CANCEL);
      for (let i = 0; i < 200 && bp.list().length > 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(bp.list()).toHaveLength(0);
      const x = await exchangeFor('/pause-h2-gone');
      for (let i = 0; i < 100 && !x.error; i++) await new Promise((r) => setTimeout(r, 10));
      expect(x.error?.code).toBe(ErrorCodes.CLIENT_ABORTED);
    } finally {
      s.close();
    }
  });
});

describe('registry checks', () => {
  it('refuses a body edit on a cut body, a status on a request, and an unknown id', async () => {
    const r = new Breakpoints();
    const p = r.pause(
      { exchangeId: 'x', phase: 'request', ruleId: 'r', method: 'GET', url: 'http://a/', headers: [], body: '', bodyCut: true },
      1000,
      () => () => {},
    );
    const id = r.list()[0]!.id;
    expect(() => r.continue(id, { body: 'x' })).toThrow(/cannot be edited/);
    expect(() => r.continue(id, { status: 200 })).toThrow(/response breakpoint/);
    expect(() => r.continue(id, { headers: [['bad name', 'v']] })).toThrow(/not a valid token/);
    expect(() => r.continue('nope')).toThrow(/No paused exchange/);
    r.continue(id);
    expect(await p).toEqual({ outcome: 'continued' });
  });
});
