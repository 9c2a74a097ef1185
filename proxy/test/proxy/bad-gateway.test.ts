/**
 * Upstream failures that retrying cannot fix (refused, unknown host name, TLS
 * verification) reach the client as `502 Bad Gateway` + `X-Netlens-Error: <code>` and a
 * one-line reason, on HTTP/1.1 and HTTP/2 client legs (curl, plain proxy and intercepted
 * CONNECT); transient failures (a reset) still close the connection or stream so browsers
 * retry. The exchange keeps its error and records the 502 the client got.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeToEntry } from '../../src/har/entry.js';
import { notReplayable } from '../../src/replay/load.js';
import type { CertificateAuthority } from '../../src/tls/ca.js';
import { curl, httpsOrigin, loadOrCreateCA, tempDataDir, testProxy, type Origin, type TestProxy } from './harness.js';

let tp: TestProxy;
let ca: CertificateAuthority;
let untrusted: Origin;
let deadPort = 0;
let slam: net.Server;
let slamPort = 0;

beforeAll(async () => {
  const dataDir = tempDataDir();
  ca = loadOrCreateCA(dataDir);
  tp = await testProxy({ dataDir });
  // An HTTPS origin whose certificate comes from a CA the proxy was not told about.
  untrusted = await httpsOrigin(loadOrCreateCA(tempDataDir()), { h2: true });
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  deadPort = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  // Resets every connection at once: transient, so the client must see a close, not a 502.
  slam = net.createServer((sock) => sock.resetAndDestroy());
  await new Promise<void>((r) => slam.listen(0, '127.0.0.1', r));
  slamPort = (slam.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await tp?.stop();
  await untrusted?.close();
  slam?.close();
});

interface Answer {
  exit: number;
  status: number;
  errorHeader?: string;
  contentType?: string;
  body: string;
  stderr: string;
}

/** curl through the proxy (-i, status appended): the last response's status, X-Netlens-Error and body. */
async function via(url: string, leg: 'http1.1' | 'http2'): Promise<Answer> {
  const tls = url.startsWith('https:') ? ['--cacert', ca.certPath] : [];
  const r = await curl(['-x', tp.proxy.address.url, ...tls, `--${leg}`, '-i', '-w', '\n%{http_code}', url]);
  const cut = r.stdout.lastIndexOf('\n');
  const status = Number(r.stdout.slice(cut + 1));
  const text = r.stdout.slice(0, cut);
  // -i prints the CONNECT's "200 Connection established" head first: the last head is the response's.
  const heads = text.split('\r\n\r\n');
  const body = heads.length > 1 ? heads.at(-1)! : '';
  const head = heads.length > 1 ? heads.at(-2)! : text;
  const header = (name: string) => new RegExp(`^${name}: *(.*)$`, 'mi').exec(head)?.[1]?.trim();
  return { exit: r.code, status, errorHeader: header('x-netlens-error'), contentType: header('content-type'), body, stderr: r.stderr };
}

async function exchangeFor(path: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const x = tp.exchanges().find((e) => e.request.url.includes(path));
    if (x) return x;
    if (Date.now() > deadline) throw new Error(`no exchange for ${path}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The one-line body: a single line ending in \n. */
function expectOneLine(body: string, pattern: RegExp) {
  expect(body).toMatch(pattern);
  expect(body.endsWith('\n')).toBe(true);
  expect(body.trimEnd().includes('\n')).toBe(false);
}

describe('permanent upstream failures → 502 with X-Netlens-Error', () => {
  it('refused port, plain HTTP proxy leg: 502, the code, a one-line reason; recorded with the error and the 502', async () => {
    const a = await via(`http://127.0.0.1:${deadPort}/refused-plain`, 'http1.1');
    expect(a.exit, a.stderr).toBe(0);
    expect(a.status).toBe(502);
    expect(a.errorHeader).toBe('NL_UPSTREAM_REFUSED');
    expect(a.contentType).toMatch(/^text\/plain/);
    expectOneLine(a.body, /refused the connection/);
    const x = await exchangeFor('/refused-plain');
    expect(x.error).toMatchObject({ code: 'NL_UPSTREAM_REFUSED', side: 'upstream' });
    expect(x.retries).toBe(2);
    expect(x.response?.status).toBe(502);
    // HAR: the 502 the client got, `_error` stays the source of truth; never replayed as the origin's answer.
    const e = exchangeToEntry(x);
    expect(e.response.status).toBe(502);
    expect(e._errorCode).toBe('NL_UPSTREAM_REFUSED');
    expect(e._error).toMatch(/refused/);
    expect(e.response.headers).toContainEqual({ name: 'X-Netlens-Error', value: 'NL_UPSTREAM_REFUSED' });
    expect(e.response.content.text).toMatch(/refused the connection/);
    expect(notReplayable(e)).toMatch(/failed when recorded/);
  });

  for (const leg of ['http1.1', 'http2'] as const) {
    it(`refused port inside an intercepted CONNECT (${leg})`, async () => {
      const a = await via(`https://127.0.0.1:${deadPort}/refused-${leg}`, leg);
      expect(a.exit, a.stderr).toBe(0);
      expect(a.status).toBe(502);
      expect(a.errorHeader).toBe('NL_UPSTREAM_REFUSED');
      expectOneLine(a.body, /refused the connection/);
      const x = await exchangeFor(`/refused-${leg}`);
      expect(x.error?.code).toBe('NL_UPSTREAM_REFUSED');
      expect(x.clientProtocol).toBe(leg === 'http2' ? 'h2' : 'http/1.1');
      expect(x.response?.status).toBe(502);
    });

    it(`untrusted origin certificate inside an intercepted CONNECT (${leg}): NL_UPSTREAM_TLS naming --upstream-ca`, async () => {
      const a = await via(`https://localhost:${untrusted.port}/tls-${leg}`, leg);
      expect(a.exit, a.stderr).toBe(0);
      expect(a.status).toBe(502);
      expect(a.errorHeader).toBe('NL_UPSTREAM_TLS');
      expectOneLine(a.body, /--upstream-ca/);
      expect((await exchangeFor(`/tls-${leg}`)).error?.code).toBe('NL_UPSTREAM_TLS');
    });

    it(`host name that does not exist (.invalid, RFC 6761) (${leg})`, async () => {
      const a = await via(`https://netlens-test.invalid/dns-${leg}`, leg);
      const x = await exchangeFor(`/dns-${leg}`);
      expect(x.error?.code).toBe('NL_UPSTREAM_DNS');
      expect(a.exit, a.stderr).toBe(0);
      expect(a.status).toBe(502);
      expect(a.errorHeader).toBe('NL_UPSTREAM_DNS');
      expectOneLine(a.body, /did not resolve/);
    });
  }

  it('host name that does not exist, plain HTTP proxy leg', async () => {
    const a = await via('http://netlens-test.invalid/dns-plain', 'http1.1');
    expect(a.status).toBe(502);
    expect(a.errorHeader).toBe('NL_UPSTREAM_DNS');
  });
});

describe('transient upstream failures still close the client connection (browsers retry)', () => {
  it('reset by the origin, plain HTTP/1.1: empty reply, no 502', async () => {
    const r = await curl(['-x', tp.proxy.address.url, '-i', `http://127.0.0.1:${slamPort}/reset-plain`]);
    expect(r.code).toBe(52); // curl: empty reply from server
    expect(r.stdout).not.toMatch(/502/);
    expect((await exchangeFor('/reset-plain')).error?.code).toBe('NL_UPSTREAM_RESET');
    expect((await exchangeFor('/reset-plain')).response).toBeUndefined();
  });

  it('reset by the origin, HTTP/2 inside an intercepted CONNECT: the stream is reset, no 502', async () => {
    const r = await curl(['-x', tp.proxy.address.url, '--cacert', ca.certPath, '--http2', '-i', `https://127.0.0.1:${slamPort}/reset-h2`]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).not.toMatch(/ 502/);
    const x = await exchangeFor('/reset-h2');
    expect(x.error?.code).not.toBe('NL_UPSTREAM_REFUSED');
    expect(x.response).toBeUndefined();
  });

  it('the proxy still serves after all of the above (keep-alive after a 502 too)', async () => {
    const port = deadPort;
    // Two requests on one curl connection: the 502 does not close it.
    const r = await curl([
      '-x',
      tp.proxy.address.url,
      '-s',
      '-o',
      '/dev/null',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code} %{num_connects}\n',
      `http://127.0.0.1:${port}/ka1`,
      `http://127.0.0.1:${port}/ka2`,
    ]);
    expect(r.stdout.trim().split('\n')).toEqual(['502 1', '502 0']);
  });
});
