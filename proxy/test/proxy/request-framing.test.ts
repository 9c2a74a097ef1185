/**
 * Request-side HTTP rules, on every client leg where they apply: plain HTTP/1.1
 * (absolute-form), intercepted HTTP/1.1 (TLS inside CONNECT) and intercepted HTTP/2.
 * Bad inputs next to good ones; the origin logs the raw request heads it receives.
 */
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testProxy, type TestProxy } from './harness.js';

interface Seen {
  head: string;
  at: number;
  connection: number;
}

let tp: TestProxy;
/** The origin over cleartext (plain leg) and over TLS (the intercepted legs' upstream). */
let originPort = 0;
let tlsPort = 0;
let originServer: net.Server;
let tlsServer: tls.Server;
const seen: Seen[] = [];
/** Paths whose answer the origin holds back this long (ms). */
const delays: Record<string, number> = { '/slow': 300 };
const answered = new Map<string, number>();

beforeAll(async () => {
  tp = await testProxy({ maxHeaderSize: 64 * 1024 });
  let connections = 0;
  const onConnection = (s: net.Socket) => {
    const id = ++connections;
    let buf = '';
    s.on('error', () => {});
    s.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
        const head = buf.slice(0, end);
        buf = buf.slice(end + 4);
        seen.push({ head, at: Date.now(), connection: id });
        const path = head.split(' ')[1] ?? '';
        const reply = () => {
          answered.set(path, Date.now());
          s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
        };
        if (delays[path]) setTimeout(reply, delays[path]);
        else reply();
      }
    });
  };
  originServer = net.createServer(onConnection);
  await new Promise<void>((r) => originServer.listen(0, '127.0.0.1', r));
  originPort = (originServer.address() as net.AddressInfo).port;
  const cert = tp.proxy.ca.issue(['localhost', '127.0.0.1']);
  tlsServer = tls.createServer({ cert: cert.certPem, key: cert.keyPem, ALPNProtocols: ['http/1.1'] }, onConnection);
  await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
  tlsPort = (tlsServer.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await tp?.stop();
  originServer?.close();
  tlsServer?.close();
});

/** Reads everything until the peer closes (or `ms` pass: then the connection is ended and `hung` is set). */
function readAll(s: net.Socket | tls.TLSSocket, ms = 5000): Promise<{ text: string; hung: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    let hung = false;
    s.setEncoding('latin1');
    s.on('data', (d: string) => (text += d));
    s.on('error', () => {});
    const timer = setTimeout(() => {
      hung = true;
      s.destroy();
    }, ms);
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ text, hung });
    });
  });
}

/** Raw bytes to the proxy's plain listener. */
async function plain(bytes: string, ms?: number) {
  const s = net.connect(tp.proxy.address.port, '127.0.0.1');
  s.write(bytes);
  return readAll(s, ms);
}

/** A CONNECT tunnel to the origin's port, intercepted: a TLS socket speaking `alpn`. */
async function intercepted(alpn: string): Promise<tls.TLSSocket> {
  const raw = net.connect(tp.proxy.address.port, '127.0.0.1');
  raw.write(`CONNECT localhost:${tlsPort} HTTP/1.1\r\nHost: localhost:${tlsPort}\r\n\r\n`);
  await new Promise<void>((resolve, reject) => {
    let got = '';
    const onData = (d: Buffer) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n')) {
        raw.off('data', onData);
        if (/^HTTP\/1\.1 200/.test(got)) resolve();
        else reject(new Error(got));
      }
    };
    raw.on('data', onData);
  });
  const s = tls.connect({ socket: raw, servername: 'localhost', rejectUnauthorized: false, ALPNProtocols: [alpn] });
  await new Promise((r) => s.once('secureConnect', r));
  return s;
}

/** Raw bytes inside an intercepted HTTP/1.1 tunnel. */
async function tunnelH1(bytes: string, ms?: number) {
  const s = await intercepted('http/1.1');
  s.write(bytes);
  return readAll(s, ms);
}

/** One HTTP/2 request inside an intercepted tunnel: status, or the stream/session error. */
async function tunnelH2(headers: http2.OutgoingHttpHeaders): Promise<{ status?: number; error?: string; body: string }> {
  const s = await intercepted('h2');
  const options = { createConnection: () => s, maxHeaderListPairs: 4000, maxSendHeaderBlockLength: 1 << 20 };
  const session = http2.connect(`https://localhost:${tlsPort}`, options as http2.SecureClientSessionOptions);
  session.on('error', () => {});
  try {
    return await new Promise((resolve) => {
      const st = session.request({ ':path': '/', ...headers });
      let status: number | undefined;
      let body = '';
      st.setEncoding('latin1');
      st.on('response', (h) => (status = Number(h[':status'])));
      st.on('data', (d: string) => (body += d));
      st.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code, body }));
      st.on('close', () => resolve({ status, body }));
      st.end();
    });
  } finally {
    session.destroy();
  }
}

const status = (text: string) => Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
const manyHeaders = (n: number) => Array.from({ length: n }, (_, i) => `X-H${i}: v\r\n`).join('');
const lastSeen = () => seen.at(-1)?.head ?? '';
const recorded = (pathPart: string) =>
  tp
    .exchanges()
    .filter((x) => x.request.url.includes(pathPart))
    .at(-1);

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

describe('request line version', () => {
  it('plain: HTTP/2.0 on an HTTP/1 connection gets 505 (was 500 from a TypeError); HTTP/1.1 and HTTP/1.0 are served', async () => {
    const before = seen.length;
    const bad = await plain(`GET http://127.0.0.1:${originPort}/v20 HTTP/2.0\r\nHost: 127.0.0.1:${originPort}\r\n\r\n`);
    expect(status(bad.text)).toBe(505);
    expect(seen.length).toBe(before);
    await until(() => !!recorded('/v20'));
    expect(recorded('/v20')?.error).toMatchObject({ code: 'NL_CLIENT_MALFORMED', side: 'client' });
    expect(status((await plain(`GET http://127.0.0.1:${originPort}/v11 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).text)).toBe(200);
    expect(status((await plain(`GET http://127.0.0.1:${originPort}/v10 HTTP/1.0\r\n\r\n`)).text)).toBe(200);
  });

  it('plain: HTTP/3.0 and the HTTP/2 preface get 505, a malformed version (HTTP/12.0, HTTP/1.2) or a bad method 400', async () => {
    expect(status((await plain(`GET http://127.0.0.1:${originPort}/v30 HTTP/3.0\r\nHost: x\r\n\r\n`)).text)).toBe(505);
    const preface = await plain('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    expect(status(preface.text)).toBe(505);
    // HTTP-version is "HTTP/" DIGIT "." DIGIT (RFC 9112 §2.3): two digits are malformed, not another version.
    const malformed = await plain(`GET http://127.0.0.1:${originPort}/v12 HTTP/12.0\r\nHost: x\r\n\r\n`);
    expect(status(malformed.text)).toBe(400);
    expect(malformed.text).toMatch(/HPE_INVALID_VERSION/);
    expect(status((await plain(`GET http://127.0.0.1:${originPort}/v12 HTTP/1.2\r\nHost: x\r\n\r\n`)).text)).toBe(400);
    expect(status((await plain(`G(T http://127.0.0.1:${originPort}/m HTTP/1.1\r\nHost: x\r\n\r\n`)).text)).toBe(400);
  });

  it('intercepted HTTP/1.1: HTTP/2.0 gets 505; HTTP/1.1 is served', async () => {
    expect(status((await tunnelH1('GET /v20 HTTP/2.0\r\nHost: localhost\r\n\r\n')).text)).toBe(505);
    expect(status((await tunnelH1('GET /v11 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).text)).toBe(200);
  });
});

describe('Host', () => {
  it('plain: two Host headers get 400, recorded as a client error; one is served', async () => {
    const before = seen.length;
    const r = await plain(`GET http://127.0.0.1:${originPort}/two-hosts HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n`);
    expect(status(r.text)).toBe(400);
    expect(seen.length).toBe(before);
    await until(() => !!recorded('/two-hosts'));
    expect(recorded('/two-hosts')?.error).toMatchObject({ code: 'NL_CLIENT_MALFORMED', side: 'client' });
  });

  it("intercepted HTTP/1.1: two Hosts and a missing Host get 400 (as Node's own server answers); HTTP/1.0 without Host is served", async () => {
    const before = seen.length;
    expect(status((await tunnelH1('GET /two HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n')).text)).toBe(400);
    expect(status((await tunnelH1('GET /nohost HTTP/1.1\r\n\r\n')).text)).toBe(400);
    expect(seen.length).toBe(before);
    expect(status((await tunnelH1('GET /h10 HTTP/1.0\r\n\r\n')).text)).toBe(200);
  });

  it('plain: an absolute-form request goes upstream with Host = the URI authority (RFC 9112 §3.2.2)', async () => {
    const r = await plain(
      `GET http://127.0.0.1:${originPort}/authority HTTP/1.1\r\nHost: somewhere-else.example\r\nConnection: close\r\n\r\n`,
    );
    expect(status(r.text)).toBe(200);
    expect(lastSeen()).toMatch(new RegExp(`\\r\\nHost: 127\\.0\\.0\\.1:${originPort}(\\r\\n|$)`, 'i'));
    expect(lastSeen()).not.toMatch(/somewhere-else/);
  });
});

describe('asterisk-form', () => {
  it('intercepted HTTP/1.1: OPTIONS * reaches the origin as "OPTIONS *" (was "/*"); GET * is refused with 400', async () => {
    expect(status((await tunnelH1('OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).text)).toBe(200);
    expect(lastSeen()).toMatch(/^OPTIONS \* HTTP\/1\.1/);
    expect(status((await tunnelH1('GET * HTTP/1.1\r\nHost: localhost\r\n\r\n')).text)).toBe(400);
  });

  it('plain: OPTIONS with an authority-only absolute URI is forwarded as "OPTIONS *" (RFC 9112 §3.2.4); with a path, as the path', async () => {
    expect(status((await plain(`OPTIONS http://127.0.0.1:${originPort} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).text)).toBe(200);
    expect(lastSeen()).toMatch(/^OPTIONS \* HTTP\/1\.1/);
    expect(status((await plain(`OPTIONS http://127.0.0.1:${originPort}/p HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).text)).toBe(
      200,
    );
    expect(lastSeen()).toMatch(/^OPTIONS \/p HTTP\/1\.1/);
  });

  it('intercepted HTTP/2: :path * with OPTIONS reaches the origin as "OPTIONS *"', async () => {
    const r = await tunnelH2({ ':method': 'OPTIONS', ':path': '*' });
    expect(r.status).toBe(200);
    expect(lastSeen()).toMatch(/^OPTIONS \* HTTP\/1\.1/);
  });
});

describe('pipelining', () => {
  const pipelined = (prefix: string) =>
    `GET ${prefix}/slow HTTP/1.1\r\nHost: localhost\r\n\r\nGET ${prefix}/fast HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`;

  it.each([
    ['plain', () => plain(pipelined(`http://127.0.0.1:${originPort}`))],
    ['intercepted HTTP/1.1', () => tunnelH1(pipelined(''))],
  ])('%s: two pipelined requests reach the origin in order, the second after the first was answered', async (_leg, run) => {
    const before = seen.length;
    const r = await run();
    expect(r.text.match(/HTTP\/1\.1 200/g)?.length).toBe(2);
    const mine = seen.slice(before);
    expect(mine.map((s) => s.head.split(' ')[1])).toEqual(['/slow', '/fast']);
    expect(mine[1]!.at).toBeGreaterThanOrEqual(answered.get('/slow')!);
  });
});

describe('header limits: one limit on every leg, 431 past it', () => {
  const big = (kib: number) => `X-Big: ${'a'.repeat(kib * 1024)}\r\n`;

  it('plain and intercepted HTTP/1.1: a 60 KiB header is forwarded; a 70 KiB one gets 431 (was no answer inside tunnels)', async () => {
    expect(
      status((await plain(`GET http://127.0.0.1:${originPort}/h60 HTTP/1.1\r\nHost: x\r\n${big(60)}Connection: close\r\n\r\n`)).text),
    ).toBe(200);
    expect(status((await tunnelH1(`GET /h60 HTTP/1.1\r\nHost: localhost\r\n${big(60)}Connection: close\r\n\r\n`)).text)).toBe(200);
    expect(status((await plain(`GET http://127.0.0.1:${originPort}/h70 HTTP/1.1\r\nHost: x\r\n${big(70)}\r\n`)).text)).toBe(431);
    expect(status((await tunnelH1(`GET /h70 HTTP/1.1\r\nHost: localhost\r\n${big(70)}\r\n`)).text)).toBe(431);
  });

  it('plain and intercepted HTTP/1.1: 1,000 header lines are forwarded whole; 1,001 get 431 (were silently cut to ~1,023)', async () => {
    const lines = (head: string) => head.split('\r\n').filter((l) => l.startsWith('X-H')).length;
    const whole = `GET http://127.0.0.1:${originPort}/n1000 HTTP/1.1\r\nHost: x\r\n${manyHeaders(998)}Connection: close\r\n\r\n`;
    expect(status((await plain(whole)).text)).toBe(200);
    expect(lines(lastSeen())).toBe(998);
    expect(status((await tunnelH1(`GET /n1000 HTTP/1.1\r\nHost: localhost\r\n${manyHeaders(998)}Connection: close\r\n\r\n`)).text)).toBe(
      200,
    );
    expect(lines(lastSeen())).toBe(998);
    const before = seen.length;
    expect(status((await plain(`GET http://127.0.0.1:${originPort}/n1100 HTTP/1.1\r\nHost: x\r\n${manyHeaders(1100)}\r\n`)).text)).toBe(
      431,
    );
    expect(status((await tunnelH1(`GET /n1100 HTTP/1.1\r\nHost: localhost\r\n${manyHeaders(1100)}\r\n`)).text)).toBe(431);
    expect(seen.length).toBe(before);
    await until(() => !!recorded('/n1100'));
    expect(recorded('/n1100')?.error?.code).toBe('NL_REQUEST_HEADERS_TOO_LARGE');
  });

  it('intercepted HTTP/2: 990 header fields are forwarded whole; 1,100 get 431', async () => {
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-h${i}`, 'v']));
    const ok = await tunnelH2(fields(990));
    expect(ok.status).toBe(200);
    expect(
      lastSeen()
        .split('\r\n')
        .filter((l) => /^x-h/i.test(l)).length,
    ).toBe(990);
    const bad = await tunnelH2(fields(1100));
    expect(bad.status).toBe(431);
  });

  it('intercepted HTTP/2: a 60 KiB header is forwarded; 70 KiB gets 431; past twice the limit nghttp2 refuses the connection', async () => {
    expect(await tunnelH2({ 'x-big': 'a'.repeat(60 * 1024) })).toMatchObject({ status: 200, body: 'ok' });
    expect(await tunnelH2({ 'x-big': 'a'.repeat(70 * 1024) })).toMatchObject({ status: 431 });
    const huge = await tunnelH2({ 'x-big': 'a'.repeat(200 * 1024) });
    expect(huge.status).toBeUndefined();
    expect(huge.error).toMatch(/^ERR_HTTP2_(SESSION|STREAM)_ERROR$/);
    expect(await tunnelH2({})).toMatchObject({ status: 200 });
  });
});
