/**
 * HTTP/2 → HTTP/1.1 translation cases for the smuggling corpus: sent with the raw
 * HTTP/2 client inside an intercepted CONNECT (ALPN h2), forwarded by the proxy to a
 * strict HTTP/1.1 origin. Each stream carries `x-stream: <id>` so the origin's log
 * shows which stream a request came from.
 */
import type { H2Header, H2Stream } from './raw-h2.js';

export interface H2Case {
  name: string;
  streams(authority: string): H2Stream[];
}

const base = (a: string, method = 'POST', path = '/h2'): H2Header[] => [
  [':method', method],
  [':scheme', 'https'],
  [':authority', a],
  [':path', path],
];
const SMUG = 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n';

const cases: H2Case[] = [];
const one = (name: string, headers: (a: string) => H2Header[], data?: string[]) =>
  cases.push({ name, streams: (a) => [{ headers: headers(a), data }] });

one('valid GET', (a) => base(a, 'GET'));
one('valid POST with content-length', (a) => [...base(a), ['content-length', '5']], ['hello']);
one('POST without content-length', (a) => base(a), ['hello']);
one('content-length split over two DATA frames', (a) => [...base(a), ['content-length', '5']], ['he', 'llo']);
one('content-length larger than DATA', (a) => [...base(a), ['content-length', '10']], ['hello']);
one('content-length smaller than DATA', (a) => [...base(a), ['content-length', '3']], [`hello${SMUG}`]);
one('content-length 0 with DATA holding a request', (a) => [...base(a), ['content-length', '0']], [SMUG]);
one('two different content-length fields', (a) => [...base(a), ['content-length', '5'], ['content-length', '40']], ['hello']);
one('content-length +5', (a) => [...base(a), ['content-length', '+5']], ['hello']);
one('content-length "5, 5"', (a) => [...base(a), ['content-length', '5, 5']], ['hello']);
one('GET with content-length and DATA', (a) => [...base(a, 'GET'), ['content-length', '5']], ['hello']);
one('transfer-encoding: chunked with a chunked body', (a) => [...base(a), ['transfer-encoding', 'chunked']], [`0\r\n\r\n${SMUG}`]);
one('transfer-encoding: chunked with content-length', (a) => [...base(a), ['transfer-encoding', 'chunked'], ['content-length', '38']], [
  `0\r\n\r\n${SMUG}`,
]);
one('te: trailers', (a) => [...base(a, 'GET'), ['te', 'trailers']]);
one('te: gzip', (a) => [...base(a, 'GET'), ['te', 'gzip']]);
one('connection: keep-alive', (a) => [...base(a, 'GET'), ['connection', 'keep-alive']]);
one('upgrade: h2c', (a) => [...base(a, 'GET'), ['upgrade', 'h2c']]);
one('keep-alive and proxy-connection', (a) => [...base(a, 'GET'), ['keep-alive', 'timeout=5'], ['proxy-connection', 'keep-alive']]);
one('value with CRLF and an injected TE header', (a) => [...base(a), ['x-a', 'b\r\nTransfer-Encoding: chunked'], ['content-length', '5']], [
  'hello',
]);
one('value with CRLF CRLF and an injected request', (a) => [...base(a, 'GET'), ['x-a', `b\r\n\r\n${SMUG}`]]);
one('value with a bare LF', (a) => [...base(a, 'GET'), ['x-a', 'b\nHost: smuggled']]);
one('value with a bare CR', (a) => [...base(a, 'GET'), ['x-a', 'b\rc']]);
one('value with a NUL', (a) => [...base(a, 'GET'), ['x-a', 'b\x00c']]);
one('value with leading and trailing spaces', (a) => [...base(a, 'GET'), ['x-a', '  b  ']]);
one('upper-case header name', (a) => [...base(a, 'GET'), ['X-Upper', 'b']]);
one('header name with a space', (a) => [...base(a, 'GET'), ['x a', 'b']]);
one('header name with a colon', (a) => [...base(a, 'GET'), ['x:a', 'b']]);
one('empty header name', (a) => [...base(a, 'GET'), ['', 'b']]);
one(':path with CRLF and an injected request', (a) => base(a, 'GET', `/h2 HTTP/1.1\r\nHost: x\r\n\r\n${SMUG}`));
one(':path with a space', (a) => base(a, 'GET', '/a b'));
one('empty :path', (a) => base(a, 'GET', ''));
one(':path * with OPTIONS', (a) => base(a, 'OPTIONS', '*'));
one(':path in absolute form', (a) => base(a, 'GET', `https://${a}/abs`));
one(':path without a leading slash', (a) => base(a, 'GET', 'noslash'));
one(':method with a space', (a) => base(a, 'GET /smuggled HTTP/1.1\r\nX:', '/h2'));
one('lower-case :method', (a) => base(a, 'get'));
one('duplicate :path', (a) => [...base(a, 'GET'), [':path', '/smuggled']]);
one('missing :path', (a) => base(a, 'GET').filter(([k]) => k !== ':path'));
one('missing :method', (a) => base(a).filter(([k]) => k !== ':method'));
one('unknown pseudo-header', (a) => [...base(a, 'GET'), [':foo', 'bar']]);
one('pseudo-header after a regular header', (a) => [...base(a, 'GET').slice(0, 3), ['x-a', 'b'], [':path', '/late']]);
one(':authority and a different host header', (a) => [...base(a, 'GET'), ['host', 'smuggled.example']]);
one('host header without :authority', (a) => [...base(a, 'GET').filter(([k]) => k !== ':authority'), ['host', a]]);
one(':authority with userinfo', (a) => base(a, 'GET').map(([k, v]): H2Header => [k, k === ':authority' ? `user@${v}` : v]));
one(':authority with a path', (a) => base(a, 'GET').map(([k, v]): H2Header => [k, k === ':authority' ? `${v}/smuggled` : v]));
one(':scheme http inside TLS', (a) => base(a, 'GET').map(([k, v]): H2Header => [k, k === ':scheme' ? 'http' : v]));
one('CONNECT without :protocol', (a) => [
  [':method', 'CONNECT'],
  [':authority', a],
]);
one('host header with CRLF', (a) => [...base(a, 'GET').filter(([k]) => k !== ':authority'), ['host', `${a}\r\nX-Injected: 1`]]);
cases.push({
  name: 'twenty streams in one write',
  streams: (a) =>
    Array.from({ length: 20 }, (_, i) => ({ headers: base(a, i % 2 ? 'POST' : 'GET', `/m${i}`), data: i % 2 ? [`body${i}`] : undefined })),
});
cases.push({
  name: 'valid and malformed streams mixed',
  streams: (a) => [
    { headers: base(a, 'GET', '/ok1') },
    { headers: [...base(a), ['transfer-encoding', 'chunked']], data: [`0\r\n\r\n${SMUG}`] },
    { headers: [...base(a), ['content-length', '2']], data: ['hello'] },
    { headers: base(a, 'GET', '/ok2') },
  ],
});

export const H2_CASES: readonly H2Case[] = cases;
