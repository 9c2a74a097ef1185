/**
 * Upstream responses the HTTP/1.1 client (undici) used to get wrong, on every client
 * leg: plain HTTP/1.1 (absolute-form https:// target), intercepted HTTP/1.1 and
 * intercepted HTTP/2 (curl through CONNECT). The origin is a raw TLS server writing
 * exact bytes. Rule checked throughout: once any response byte came from the origin,
 * the request is never retried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, testProxy, type TestProxy } from './harness.js';
import { rawOrigin, viaProxy, type RawOrigin, type Respond } from '../reliability/anomaly-origin.js';

const CRLF = '\r\n';
const OK = `HTTP/1.1 200 OK${CRLF}Content-Length: 2${CRLF}${CRLF}ok`;
const send =
  (text: string): Respond =>
  (s) =>
    s.write(text);

const modes: Record<string, Respond> = {
  normal: send(OK),
  'continue-then-final': send(`HTTP/1.1 100 Continue${CRLF}${CRLF}${OK}`),
  'early-hints': send(`HTTP/1.1 103 Early Hints${CRLF}Link: </s.css>; rel=preload${CRLF}${CRLF}${OK}`),
  'processing-then-continue': send(`HTTP/1.1 102 Processing${CRLF}${CRLF}HTTP/1.1 100 Continue${CRLF}${CRLF}${OK}`),
  '304-with-length': send(`HTTP/1.1 304 Not Modified${CRLF}Content-Length: 10${CRLF}ETag: "x"${CRLF}${CRLF}`),
  'head-with-length': send(`HTTP/1.1 200 OK${CRLF}Content-Length: 1234${CRLF}${CRLF}`),
  '204-with-body': send(`HTTP/1.1 204 No Content${CRLF}Content-Length: 5${CRLF}${CRLF}hello`),
  'bad-status-line': (s) => s.end(`HTTP/1.1 abc OK${CRLF}${CRLF}`),
  'bad-chunk-size': (s) => s.end(`HTTP/1.1 200 OK${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}zz${CRLF}x${CRLF}`),
  '101-no-upgrade': send(`HTTP/1.1 101 Switching Protocols${CRLF}${CRLF}`),
  'continue-then-close': (s) => s.end(`HTTP/1.1 100 Continue${CRLF}${CRLF}`),
  'close-mid-head': (s) => s.end(`HTTP/1.1 200 OK${CRLF}Content-Le`),
  'close-before-byte': (s) => s.end(),
};

let tp: TestProxy;
let origin: RawOrigin;

beforeAll(async () => {
  tp = await testProxy();
  origin = await rawOrigin(modes, tp.proxy.ca.issue(['127.0.0.1']));
});
afterAll(async () => {
  await tp?.stop();
  await origin?.close();
});

/** What a leg's client got: a status and whether the response completed, or status 0 for a close without one. */
interface Got {
  status: number;
  complete: boolean;
  body: string;
}

type Leg = (path: string, method: string) => Promise<Got>;

const plainLeg: Leg = async (path, method) => {
  const o = await viaProxy(tp.proxy.address.port, `https://127.0.0.1:${origin.port}${path}`, { method });
  expect(o.kind).not.toBe('hung');
  return o.kind === 'response' ? { status: o.status, complete: o.complete, body: o.body } : { status: 0, complete: false, body: '' };
};

const curlLeg =
  (version: '--http1.1' | '--http2'): Leg =>
  async (path, method) => {
    const head = method === 'HEAD' ? ['-I'] : [];
    const r = await curl(
      ['-k', version, '-x', tp.proxy.address.url, ...head, '-w', '\n%{http_code}', `https://127.0.0.1:${origin.port}${path}`],
      10_000,
    );
    expect(r.code, 'curl timed out (a hung connection)').not.toBe(28);
    const lines = r.stdout.split('\n');
    const status = Number(lines.at(-1));
    return { status, complete: r.code === 0, body: method === 'HEAD' ? '' : lines.slice(0, -1).join('\n') };
  };

const legs: [string, Leg][] = [
  ['plain HTTP/1.1', plainLeg],
  ['intercepted HTTP/1.1', curlLeg('--http1.1')],
  ['intercepted HTTP/2', curlLeg('--http2')],
];

interface Case {
  mode: string;
  method?: string;
  status: number;
  body?: string;
  code: string | null;
  message?: RegExp;
  requests: number;
  /** A failure after the head: the head may reach the client first (HTTP/2 sends it at once), then the response is cut. */
  cutAfterHead?: number;
}

const cases: Case[] = [
  { mode: 'continue-then-final', status: 200, body: 'ok', code: null, requests: 1 },
  { mode: 'early-hints', status: 200, body: 'ok', code: null, requests: 1 },
  { mode: 'processing-then-continue', status: 200, body: 'ok', code: null, requests: 1 },
  { mode: '304-with-length', status: 304, body: '', code: null, requests: 1 },
  { mode: 'head-with-length', method: 'HEAD', status: 200, code: null, requests: 1 },
  { mode: '204-with-body', status: 204, body: '', code: null, requests: 1 },
  { mode: 'bad-status-line', status: 0, code: 'NL_UPSTREAM_PROTOCOL', message: /not valid HTTP\/1\.1: Invalid status code/, requests: 1 },
  { mode: 'bad-chunk-size', status: 0, cutAfterHead: 200, code: 'NL_UPSTREAM_PROTOCOL', message: /chunk size/i, requests: 1 },
  { mode: '101-no-upgrade', status: 0, code: 'NL_UPSTREAM_PROTOCOL', message: /101 Switching Protocols/, requests: 1 },
  { mode: 'continue-then-close', status: 0, code: 'NL_UPSTREAM_RESET', requests: 1 },
  { mode: 'close-mid-head', status: 0, code: 'NL_UPSTREAM_RESET', requests: 1 },
  // The contrast: no response byte at all, so an idempotent request is retried (1 + 2 retries).
  { mode: 'close-before-byte', status: 0, code: 'NL_UPSTREAM_RESET', requests: 3 },
];

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

describe.each(legs)('upstream responses, %s client leg', (leg, run) => {
  it.each(cases.map((c) => [c.mode, c] as const))('%s', async (mode, c) => {
    const before = origin.count(mode);
    const path = `/${mode}/${leg.replace(/\W+/g, '-')}`;
    const got = await run(path, c.method ?? 'GET');
    if (c.cutAfterHead && got.status === c.cutAfterHead) expect(got.complete, 'cut off, not complete').toBe(false);
    else expect(got.status).toBe(c.status);
    expect(got.complete, 'response complete').toBe(c.status !== 0);
    if (c.body !== undefined) expect(got.body).toBe(c.body);
    await until(() => tp.exchanges().some((x) => x.request.url.endsWith(path)));
    const x = tp
      .exchanges()
      .filter((e) => e.request.url.endsWith(path))
      .at(-1)!;
    expect(x).toBeDefined();
    if (c.code === null) expect(x.error, JSON.stringify(x.error)).toBeUndefined();
    else {
      expect(x.error?.code, x.error?.message).toBe(c.code);
      if (c.message) expect(x.error?.message).toMatch(c.message);
    }
    expect(origin.count(mode) - before, 'requests the origin saw').toBe(c.requests);
    expect(x.retries ?? 0).toBe(c.requests - 1);
    // The proxy still serves on this leg.
    expect(await run(`/normal/${leg.replace(/\W+/g, '-')}`, 'GET')).toMatchObject({ status: 200, body: 'ok', complete: true });
  });
});
