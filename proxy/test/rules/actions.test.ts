/**
 * Each rule action over real sockets (curl → proxy → local origin on 127.0.0.1),
 * plain HTTP/1.1 and intercepted HTTPS with HTTP/2 on both legs.
 */
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import path from 'node:path';
import net from 'node:net';
import { WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, httpOrigin, httpsOrigin, loadOrCreateCA, tempDataDir, testProxy, type Origin, type TestProxy } from '../proxy/harness.js';
import type { CertificateAuthority } from '../../src/tls/ca.js';
import type { Rule } from '../../src/rules/types.js';
import { ErrorCodes } from '../../src/errors.js';
import { harOf, holderWith, mirror } from './rules-harness.js';
import { tlsOver, tunnel } from '../reliability/lifecycle-helpers.js';
import type { Exchange } from '../../src/model.js';

let dataDir: string;
let ca: CertificateAuthority;
let plain: Origin;
let h2: Origin;
let tp: TestProxy;
const holder = holderWith([]);
const use = (rules: Rule[]) => holder.set(holderWith(rules).file);
const last = () => tp.exchanges().at(-1)!;

beforeAll(async () => {
  dataDir = tempDataDir();
  ca = loadOrCreateCA(dataDir);
  plain = await httpOrigin(mirror);
  h2 = await httpsOrigin(ca, { h2: true }, mirror);
  tp = await testProxy({ dataDir, rules: holder });
});
afterAll(async () => {
  await tp.stop();
  await plain.close();
  await h2.close();
});

const viaProxy = (args: string[]) => curl(['-x', tp.proxy.address.url, '--cacert', ca.certPath, ...args]);

describe('mock', () => {
  it('answers without the origin over HTTP/1.1 and HTTP/2, marked _mocked with _rules', async () => {
    use([
      {
        id: 'm',
        name: 'fake api',
        match: { path: '/api/*' },
        actions: [{ type: 'mock', status: 418, headers: { 'X-Mock': 'yes' }, body: 'mocked!' }],
      },
    ]);
    // (An intercepted CONNECT pre-connects to its origin, so only the plain origin's count can prove "not contacted".)
    const before = plain.connections;
    const n = tp.exchanges().length;
    const r1 = await viaProxy(['-i', `${plain.url}/api/one`]);
    expect(r1.stdout).toMatch(/^HTTP\/1\.1 418/);
    expect(r1.stdout).toMatch(/x-mock: yes/i);
    expect(r1.stdout.endsWith('mocked!')).toBe(true);
    const r2 = await viaProxy(['--http2', '-w', '\n%{http_code} %{http_version}', `${h2.url}/api/two`]);
    expect(r2.stdout).toBe('mocked!\n418 2');
    await tp.waitFor(n + 2);
    expect(plain.connections).toBe(before);
    const entry = harOf(last());
    expect(entry._mocked).toBe(true);
    expect(entry._rules).toEqual([{ id: 'm', name: 'fake api', actions: ['mock'] }]);
    // A request the rule does not match goes to the origin and carries no marks.
    const r3 = await viaProxy([`${plain.url}/other`]);
    expect(JSON.parse(r3.stdout).url).toBe('/other');
    await tp.waitFor(n + 3);
    expect(harOf(last())._mocked).toBeUndefined();
    expect(harOf(last())._rules).toBeUndefined();
  });

  it('first match wins; continue lets a later rule add its actions', async () => {
    use([
      { id: 'hdr', match: { path: '/c/*' }, actions: [{ type: 'rewriteResponse', headers: { set: { 'X-First': '1' } } }], continue: true },
      { id: 'mock', match: { path: '/c/*' }, actions: [{ type: 'mock', body: 'second' }] },
      { id: 'never', match: { path: '/c/*' }, actions: [{ type: 'mock', body: 'third' }] },
    ]);
    const n = tp.exchanges().length;
    expect((await viaProxy([`${plain.url}/c/x`])).stdout).toBe('second');
    await tp.waitFor(n + 1);
    expect((last().rules ?? []).map((r) => r.id)).toEqual(['hdr', 'mock']);
    expect(holder.current!.hitCounts.get('never')).toBeUndefined();
  });
});

describe('matching', () => {
  it('on the request body (read first, forwarded intact when no rule matches), h1 and h2', async () => {
    use([
      { id: 'body', match: { method: 'POST', body: { contains: 'needle' } }, actions: [{ type: 'mock', status: 200, body: 'caught' }] },
    ]);
    for (const [url, proto] of [
      [plain.url, '--http1.1'],
      [h2.url, '--http2'],
    ] as const) {
      expect((await viaProxy([proto, '--data', 'hay needle hay', `${url}/b`])).stdout).toBe('caught');
      // Over the 1 MiB a body matcher reads: streamed on whole, unmatched.
      const big = path.join(dataDir, 'big.txt');
      fs.writeFileSync(big, 'x'.repeat(1_500_000) + 'needle');
      const passed = JSON.parse((await viaProxy([proto, '--data-binary', `@${big}`, `${url}/b`])).stdout);
      expect(passed.body.length).toBe(1_500_006);
    }
    const n = tp.exchanges().length;
    await viaProxy(['--data', 'a needle', `${plain.url}/b`]);
    await tp.waitFor(n + 1);
    expect(Buffer.from(last().request.body.bytes).toString()).toBe('a needle');
  });

  it('on the HTTP version and with a Traffic filter query', async () => {
    use([
      { id: 'h2only', match: { httpVersion: 'h2', path: '/v' }, actions: [{ type: 'mock', body: 'h2' }] },
      { id: 'filter', match: { filter: 'method:GET /\\/v$/ -nothing' }, actions: [{ type: 'mock', body: 'filtered' }] },
    ]);
    expect((await viaProxy(['--http2', `${h2.url}/v`])).stdout).toBe('h2');
    expect((await viaProxy(['--http1.1', `${h2.url}/v`])).stdout).toBe('filtered');
    expect(JSON.parse((await viaProxy(['--http1.1', `${h2.url}/v?x`])).stdout).url).toBe('/v?x');
  });
});

describe('rewrite request', () => {
  it('changes path, query, headers and body (regex, JSON merge patch) before the origin sees them, h1 and h2', async () => {
    use([
      {
        id: 'rw',
        match: { method: 'POST', headers: [{ name: 'x-flag', equals: 'on' }] },
        actions: [
          {
            type: 'rewriteRequest',
            url: { path: '/rewritten', query: { added: '1', drop: null } },
            headers: { set: { 'X-Flag': 'rewritten' }, add: { 'X-Added': 'a' }, remove: ['x-remove'] },
            body: { replace: [{ regex: 'secret', with: 'XXX' }], jsonMergePatch: { extra: true, gone: null } },
          },
        ],
      },
    ]);
    for (const [url, proto] of [
      [plain.url, '--http1.1'],
      [h2.url, '--http2'],
    ] as const) {
      const r = await viaProxy([
        proto,
        '-H',
        'x-flag: on',
        '-H',
        'x-remove: 1',
        '--data',
        '{"a":"secret","gone":1}',
        '-H',
        'content-type: application/json',
        `${url}/orig?drop=1&keep=2`,
      ]);
      const seen = JSON.parse(r.stdout);
      expect(seen.url).toBe('/rewritten?keep=2&added=1');
      expect(seen.headers['x-flag']).toBe('rewritten');
      expect(seen.headers['x-added']).toBe('a');
      expect(seen.headers['x-remove']).toBeUndefined();
      expect(JSON.parse(seen.body)).toEqual({ a: 'XXX', extra: true });
    }
  });

  it('redirects to another host and port (Host follows)', async () => {
    const other = await httpOrigin(mirror);
    try {
      use([
        {
          id: 'redirect',
          match: { port: plain.port },
          actions: [{ type: 'rewriteRequest', url: { host: '127.0.0.1', port: other.port } }],
        },
      ]);
      const r = await viaProxy([`${plain.url}/go`]);
      expect(JSON.parse(r.stdout).headers.host).toBe(`127.0.0.1:${other.port}`);
      expect(other.connections).toBe(1);
    } finally {
      await other.close();
    }
  });
});

describe('rewrite response', () => {
  it('sets status and headers, strips caching, adds CORS, patches JSON, h1 and h2', async () => {
    use([
      {
        id: 'rs',
        match: { path: '/json' },
        actions: [
          {
            type: 'rewriteResponse',
            status: 202,
            stripCacheControl: true,
            addCors: true,
            headers: { add: { 'X-R': '1' } },
            body: { jsonMergePatch: { method: 'PATCHED' } },
          },
        ],
      },
    ]);
    for (const [url, proto] of [
      [plain.url, '--http1.1'],
      [h2.url, '--http2'],
    ] as const) {
      const r = await viaProxy([
        proto,
        '-i',
        '--suppress-connect-headers',
        '-H',
        'Origin: https://app.test',
        '--compressed',
        `${url}/json`,
      ]);
      const [head, body] = r.stdout.split(/\r\n\r\n/);
      expect(head).toMatch(/^HTTP\/[12](\.1)? 202/);
      expect(head).not.toMatch(/cache-control/i);
      expect(head).toMatch(/access-control-allow-origin: https:\/\/app\.test/i);
      expect(head).toMatch(/access-control-allow-credentials: true/i);
      expect(head).toMatch(/x-r: 1/i);
      expect(JSON.parse(body!).method).toBe('PATCHED');
    }
  });

  it('injects a script tag into HTML before </head>', async () => {
    use([{ id: 'inject', match: { path: '/html' }, actions: [{ type: 'rewriteResponse', injectScript: '/dev/inject.js' }] }]);
    const r = await viaProxy([`${plain.url}/html`]);
    expect(r.stdout).toContain('<title>t</title><script src="/dev/inject.js"></script></head>');
  });
});

describe('delay', () => {
  it('adds latency before the upstream and before the response, compared with the same request undelayed', async () => {
    use([
      { id: 'd1', match: { query: { slow: 'req' } }, actions: [{ type: 'delay', before: 'request', ms: 400 }] },
      { id: 'd2', match: { query: { slow: 'res' } }, actions: [{ type: 'delay', before: 'response', ms: 400 }] },
    ]);
    const time = async (q: string) => {
      const t = performance.now();
      await viaProxy([`${plain.url}/t?slow=${q}`]);
      return performance.now() - t;
    };
    const base = await time('none');
    const req = await time('req');
    const res = await time('res');
    expect(req - base).toBeGreaterThan(350);
    expect(res - base).toBeGreaterThan(350);
  });

  it('sends nothing upstream for a client that left while its request was delayed', async () => {
    let seen = 0;
    const counting = await httpOrigin((req, res) => {
      seen++;
      mirror(req, res);
    });
    try {
      use([{ id: 'held', match: { path: '/held' }, actions: [{ type: 'delay', before: 'request', ms: 600 }] }]);
      const s = net.connect(tp.proxy.address.port, '127.0.0.1');
      s.on('error', () => {});
      await new Promise((r) => s.once('connect', r));
      s.write(`GET ${counting.url}/held?order=1 HTTP/1.1\r\nHost: x\r\n\r\n`);
      await new Promise((r) => setTimeout(r, 150));
      s.destroy();
      // Past the delay, with time for a request to reach the origin.
      await new Promise((r) => setTimeout(r, 900));
      expect(seen).toBe(0);
      const x = tp.exchanges().find((e) => e.request.url === `${counting.url}/held?order=1`);
      expect(x?.error?.code).toBe(ErrorCodes.CLIENT_ABORTED);
      expect(x?.error?.message).toContain('before the request was sent upstream');
    } finally {
      await counting.close();
    }
  });

  // Node's HTTP/2 compatibility response has no `destroyed`: a mock written after the delay to a cancelled stream
  // was recorded as a mock that "cannot be written" (NL_RULES_INVALID) instead of the client leaving.
  it('records an HTTP/2 stream cancelled during the delay of a mock as the client leaving', async () => {
    use([
      {
        id: 'late',
        match: { path: '/late-mock' },
        actions: [
          { type: 'delay', before: 'request', ms: 400 },
          { type: 'mock', body: 'x' },
        ],
      },
    ]);
    const { socket } = await tunnel(tp.proxy.address.port, `localhost:${new URL(h2.url).port}`);
    const t = await tlsOver(socket, 'localhost', ['h2']);
    const session = http2.connect(h2.url, { createConnection: () => t });
    session.on('error', () => {});
    try {
      const st = session.request({ ':path': '/late-mock' });
      st.on('error', () => {});
      st.end();
      await new Promise((r) => setTimeout(r, 100));
      st.close(http2.constants.NGHTTP2_CANCEL);
      let x: Exchange | undefined;
      for (let i = 0; i < 200 && !x; i++) {
        await new Promise((r) => setTimeout(r, 10));
        x = tp.exchanges().find((e) => e.request.url.endsWith('/late-mock'));
      }
      expect(x?.error?.code).toBe(ErrorCodes.CLIENT_ABORTED);
    } finally {
      session.destroy();
    }
  });
});

describe('faults', () => {
  it('close, reset and timeout end the exchange without contacting the origin, recorded as NL_RULE_FAULT', async () => {
    use([
      { id: 'close', match: { path: '/close' }, actions: [{ type: 'fault', fault: 'close' }] },
      { id: 'reset', match: { path: '/reset' }, actions: [{ type: 'fault', fault: 'reset' }] },
      { id: 'hold', match: { path: '/hold' }, actions: [{ type: 'fault', fault: 'timeout', ms: 300 }] },
    ]);
    const before = plain.connections;
    const close = await viaProxy([`${plain.url}/close`]);
    expect(close.code).toBe(52); // empty reply from server
    const reset = await viaProxy([`${plain.url}/reset`]);
    expect(reset.code).toBe(56); // recv failure: connection reset
    const t = performance.now();
    const hold = await viaProxy([`${plain.url}/hold`]);
    expect(performance.now() - t).toBeGreaterThan(280);
    expect(hold.code).toBe(52);
    const h2close = await viaProxy(['--http2', `${h2.url}/close`]);
    expect(h2close.code).not.toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(plain.connections).toBe(before);
    const faults = tp.exchanges().slice(-4);
    expect(faults.map((x) => x.error?.code)).toEqual([
      ErrorCodes.RULE_FAULT,
      ErrorCodes.RULE_FAULT,
      ErrorCodes.RULE_FAULT,
      ErrorCodes.RULE_FAULT,
    ]);
  });

  it('truncate cuts the body after N bytes; trickle sends it slowly but whole', async () => {
    use([
      { id: 'cut', match: { query: { f: 'cut' } }, actions: [{ type: 'fault', fault: 'truncate', bytes: 1000 }] },
      { id: 'slow', match: { query: { f: 'slow' } }, actions: [{ type: 'fault', fault: 'trickle', bytes: 500, intervalMs: 100 }] },
    ]);
    for (const proto of ['--http1.1', '--http2']) {
      const cut = await viaProxy([proto, '-o', '/dev/null', '-w', '%{size_download}', `${h2.url}/big?size=100000&f=cut`]);
      expect(cut.code).not.toBe(0);
      expect(Number(cut.stdout)).toBe(1000);
      // Recorded as the rule's doing, not as the origin resetting.
      await new Promise((r) => setTimeout(r, 50));
      const x = tp.exchanges().at(-1)!;
      expect(x.request.url).toContain('f=cut');
      expect(x.error?.code).toBe(ErrorCodes.RULE_FAULT);
      expect(x.error?.message).toMatch(/fault: truncate/);
    }
    const t0 = performance.now();
    const fast = await viaProxy(['-o', '/dev/null', '-w', '%{size_download}', `${plain.url}/big?size=2000`]);
    const tFast = performance.now() - t0;
    const t1 = performance.now();
    const slow = await viaProxy(['-o', '/dev/null', '-w', '%{size_download}', `${plain.url}/big?size=2000&f=slow`]);
    const tSlow = performance.now() - t1;
    expect(fast.stdout).toBe('2000');
    expect(slow.stdout).toBe('2000');
    // 4 slices, 100 ms apart: at least 300 ms by construction (timers never fire early), and slower than
    // the same request untrickled. Not their difference: on a loaded machine the fast one is slow too.
    expect(tSlow).toBeGreaterThan(290);
    expect(tSlow).toBeGreaterThan(tFast);
  });
});

describe('WebSocket upgrades', () => {
  const handshake = (port: number, target: string) =>
    new Promise<string>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.write(
          `GET ${target} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
        );
      });
      let got = '';
      s.on('data', (c) => {
        got += c.toString();
        // A 101 keeps the socket open: the head is all this test needs.
        if (/^HTTP\/1\.1 101[^]*\r\n\r\n/.test(got)) s.destroy();
      });
      s.on('close', () => resolve(got));
      s.on('error', () => resolve(got));
      setTimeout(() => s.destroy(), 3000);
    });

  it('a mock refuses the upgrade with its status, recorded with _rules', async () => {
    use([{ id: 'no-ws', match: { scheme: 'ws' }, actions: [{ type: 'mock', status: 403, body: 'no sockets' }] }]);
    const n = tp.exchanges().length;
    const got = await handshake(tp.proxy.address.port, `${plain.url}/socket`);
    expect(got).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(got.endsWith('no sockets')).toBe(true);
    await tp.waitFor(n + 1);
    expect(last().mocked).toBe(true);
    expect(last().rules?.[0]?.id).toBe('no-ws');
  });

  it('a delay holds the handshake, which then goes through (101) with _rules', async () => {
    const server = http.createServer();
    const wss = new WebSocketServer({ server });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    try {
      use([{ id: 'slow-ws', match: { scheme: 'ws', path: '/slow' }, actions: [{ type: 'delay', before: 'request', ms: 400 }] }]);
      const time = async (p: string) => {
        const t = performance.now();
        const head = await handshake(tp.proxy.address.port, `http://127.0.0.1:${port}${p}`);
        return { ms: performance.now() - t, head };
      };
      const fast = await time('/fast');
      const slow = await time('/slow');
      expect(fast.head).toMatch(/^HTTP\/1\.1 101/);
      expect(slow.head).toMatch(/^HTTP\/1\.1 101/);
      expect(slow.ms - fast.ms).toBeGreaterThan(350);
      await new Promise((r) => setTimeout(r, 100));
      const slowX = tp.exchanges().find((x) => x.request.url.endsWith('/slow'));
      expect(slowX?.rules?.[0]?.id).toBe('slow-ws');
    } finally {
      wss.close();
      await new Promise((r) => server.close(r));
    }
  });
});
