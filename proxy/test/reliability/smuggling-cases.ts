/**
 * The request-smuggling corpus: raw request bytes built per path (absolute-form on the
 * plain listener, origin-form inside an intercepted tunnel) around the case's origin.
 * Every smuggled request targets a path containing "smuggled", so an origin that ever
 * answers one shows a desync at a glance in the logs.
 */

export interface Target {
  /** `host:port` of the case's origin. */
  authority: string;
  /** The request target for a path: absolute-form (plain listener) or origin-form (tunnel). */
  url(path: string): string;
  path: 'plain' | 'tunnel';
}

export interface SmuggleCase {
  name: string;
  group: string;
  /** The bytes, one element per write (so a case can split a request anywhere). */
  chunks(t: Target): string[];
}

const SMUG = (t: Target) => `GET ${t.url('/smuggled')} HTTP/1.1\r\nHost: ${t.authority}\r\n\r\n`;

/** One request with the given header lines (each without CRLF) and raw body. */
function req(t: Target, lines: string[], body = '', method = 'POST', path = '/a'): string {
  return `${method} ${t.url(path)} HTTP/1.1\r\nHost: ${t.authority}\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n${body}`;
}
const get = (t: Target, path = '/b') => `GET ${t.url(path)} HTTP/1.1\r\nHost: ${t.authority}\r\n\r\n`;

const cases: SmuggleCase[] = [];
const add = (group: string, name: string, chunks: (t: Target) => string | string[]) =>
  cases.push({ group, name, chunks: (t) => [chunks(t)].flat() });

// --- CL.TE and TE.CL: both framings on one request --------------------------------
add('cl-te', 'CL then TE, chunked body ends early, smuggled GET in CL range', (t) => {
  const body = `0\r\n\r\n${SMUG(t)}`;
  return req(t, [`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked'], body);
});
add('cl-te', 'TE then CL, chunked body ends early', (t) => {
  const body = `0\r\n\r\n${SMUG(t)}`;
  return req(t, ['Transfer-Encoding: chunked', `Content-Length: ${body.length}`], body);
});
add('cl-te', 'TE.CL: CL 4 covers the size line, chunk holds a request', (t) => {
  const inner = SMUG(t);
  return req(t, ['Content-Length: 4', 'Transfer-Encoding: chunked'], `${inner.length.toString(16)}\r\n${inner}\r\n0\r\n\r\n`);
});
add('cl-te', 'CL 0 and TE chunked with a chunk', (t) =>
  req(t, ['Content-Length: 0', 'Transfer-Encoding: chunked'], '5\r\nhello\r\n0\r\n\r\n'),
);
add('cl-te', 'CL and TE chunked, both agree on length', (t) =>
  req(t, ['Content-Length: 10', 'Transfer-Encoding: chunked'], '5\r\nhello\r\n0\r\n\r\n'),
);
add('cl-te', 'CL and TE identity', (t) => req(t, ['Content-Length: 5', 'Transfer-Encoding: identity'], 'hello'));
add('cl-te', 'GET with CL and TE', (t) => req(t, ['Content-Length: 5', 'Transfer-Encoding: chunked'], '0\r\n\r\n', 'GET'));
add('cl-te', 'CL and TE chunked, TE split over a write', (t) => {
  const r = req(t, ['Content-Length: 6', 'Transfer-Encoding: chunked'], '0\r\n\r\nX');
  const i = r.indexOf('chunked') + 3;
  return [r.slice(0, i), r.slice(i)];
});

// --- Transfer-Encoding obfuscations, each with and without a Content-Length ---------
const teVariants: [string, string][] = [
  ['xchunked', 'Transfer-Encoding: xchunked'],
  ['chunkedx', 'Transfer-Encoding: chunkedx'],
  ['leading space in value', 'Transfer-Encoding:  chunked'],
  ['trailing space in value', 'Transfer-Encoding: chunked '],
  ['chunked, identity', 'Transfer-Encoding: chunked, identity'],
  ['identity, chunked', 'Transfer-Encoding: identity, chunked'],
  ['chunked, chunked', 'Transfer-Encoding: chunked, chunked'],
  ['gzip, chunked', 'Transfer-Encoding: gzip, chunked'],
  ['uppercase CHUNKED', 'Transfer-Encoding: CHUNKED'],
  ['uppercase name', 'TRANSFER-ENCODING: chunked'],
  ['quoted "chunked"', 'Transfer-Encoding: "chunked"'],
  ['chunked;q=1', 'Transfer-Encoding: chunked;q=1'],
  ['tab before value', 'Transfer-Encoding:\tchunked'],
  ['tab after value', 'Transfer-Encoding: chunked\t'],
  ['vertical tab before value', 'Transfer-Encoding: \x0bchunked'],
  ['vertical tab after value', 'Transfer-Encoding: chunked\x0b'],
  ['form feed before value', 'Transfer-Encoding:\x0cchunked'],
  ['bare CR inside value', 'Transfer-Encoding: chu\rnked'],
  ['NUL after value', 'Transfer-Encoding: chunked\x00'],
  ['space before colon', 'Transfer-Encoding : chunked'],
  ['tab before colon', 'Transfer-Encoding\t: chunked'],
  ['underscore name', 'Transfer_Encoding: chunked'],
  ['obs-fold value', 'Transfer-Encoding:\r\n chunked'],
  ['line starting with space', ' Transfer-Encoding: chunked'],
  ['duplicate TE chunked + identity', 'Transfer-Encoding: chunked\r\nTransfer-Encoding: identity'],
  ['duplicate TE identity + chunked', 'Transfer-Encoding: identity\r\nTransfer-Encoding: chunked'],
  ['duplicate TE chunked twice', 'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked'],
  ['non-ASCII lookalike', 'Transfer-Encoding: chunk\xeDd'],
];
for (const [label, line] of teVariants) {
  add('te-obfuscation', `TE ${label}, no CL`, (t) => req(t, [line], `5\r\nhello\r\n0\r\n\r\n${SMUG(t)}`));
  add('te-obfuscation', `TE ${label}, with CL`, (t) => {
    const body = `0\r\n\r\n${SMUG(t)}`;
    return req(t, [`Content-Length: ${body.length}`, line], body);
  });
}

// --- Content-Length oddities --------------------------------------------------------
const clVariants: [string, string[], string][] = [
  ['duplicate equal', ['Content-Length: 5', 'Content-Length: 5'], 'hello'],
  ['duplicate different', ['Content-Length: 5', 'Content-Length: 6'], 'hello!'],
  ['comma list equal', ['Content-Length: 5, 5'], 'hello'],
  ['comma list different', ['Content-Length: 5, 6'], 'hello!'],
  ['plus sign', ['Content-Length: +5'], 'hello'],
  ['minus sign', ['Content-Length: -5'], 'hello'],
  ['leading zeros', ['Content-Length: 0005'], 'hello'],
  ['hex 0x5', ['Content-Length: 0x5'], 'hello'],
  ['OWS around value', ['Content-Length:  5  '], 'hello'],
  ['tab after value', ['Content-Length: 5\t'], 'hello'],
  ['two numbers with space', ['Content-Length: 5 5'], 'hello'],
  ['exponent 5e0', ['Content-Length: 5e0'], 'hello'],
  ['decimal 5.0', ['Content-Length: 5.0'], 'hello'],
  ['empty value', ['Content-Length: '], ''],
  ['huge (2^64)', ['Content-Length: 18446744073709551616'], 'hello'],
  ['2^32 + 5 (truncation)', ['Content-Length: 4294967301'], 'hello'],
  ['20 digits', ['Content-Length: 99999999999999999999'], 'hello'],
  ['space before colon', ['Content-Length : 5'], 'hello'],
  ['lowercase name', ['content-length: 5'], 'hello'],
  ['vertical tab in value', ['Content-Length: \x0b5'], 'hello'],
  ['non-ASCII digit', ['Content-Length: \xd9\xa5'], 'hello'],
  ['second CL after other headers', ['Content-Length: 5', 'X-A: b', 'content-length: 50'], 'hello'],
];
for (const [label, lines, body] of clVariants) {
  add('content-length', `CL ${label}`, (t) => req(t, lines, `${body}${SMUG(t)}`));
}
add('content-length', 'GET with a CL body', (t) => req(t, ['Content-Length: 5'], `hello${get(t)}`, 'GET'));
add('content-length', 'CL 0 followed by a request-shaped body', (t) => req(t, ['Content-Length: 0'], SMUG(t)));
add('content-length', 'CL larger than the body sent', (t) => req(t, ['Content-Length: 50'], 'hello'));
add('content-length', 'CL shorter than the body (rest is the next request)', (t) => req(t, ['Content-Length: 2'], `he${SMUG(t)}`));

// --- Line endings -------------------------------------------------------------------
add('line-endings', 'bare LF everywhere', (t) => `GET ${t.url('/lf')} HTTP/1.1\nHost: ${t.authority}\n\n`);
add('line-endings', 'bare LF after the request line', (t) => `GET ${t.url('/lf')} HTTP/1.1\nHost: ${t.authority}\r\n\r\n`);
add('line-endings', 'bare LF after one header', (t) => `GET ${t.url('/lf')} HTTP/1.1\r\nHost: ${t.authority}\nX-A: b\r\n\r\n`);
add('line-endings', 'bare LF ends the head', (t) => `GET ${t.url('/lf')} HTTP/1.1\r\nHost: ${t.authority}\r\n\n`);
add('line-endings', 'bare CR as line end', (t) => `GET ${t.url('/cr')} HTTP/1.1\rHost: ${t.authority}\r\r`);
add(
  'line-endings',
  'bare CR inside a header line',
  (t) => `GET ${t.url('/cr')} HTTP/1.1\r\nHost: ${t.authority}\r\nX-A: b\rTransfer-Encoding: chunked\r\n\r\n`,
);
add('line-endings', 'CR CR LF ends a header', (t) => `GET ${t.url('/cr')} HTTP/1.1\r\nHost: ${t.authority}\r\r\n\r\n`);
add('line-endings', 'LF CR LF ends the head', (t) => `GET ${t.url('/cr')} HTTP/1.1\r\nHost: ${t.authority}\n\r\n`);
add(
  'line-endings',
  'leading empty lines before the request line',
  (t) => `\r\n\r\nGET ${t.url('/lead')} HTTP/1.1\r\nHost: ${t.authority}\r\n\r\n`,
);
add(
  'line-endings',
  'whitespace-only line inside the head',
  (t) => `GET ${t.url('/ws')} HTTP/1.1\r\nHost: ${t.authority}\r\n \r\nX-A: b\r\n\r\n`,
);
add('line-endings', 'bare LF in a chunk size line', (t) => req(t, ['Transfer-Encoding: chunked'], '5\nhello\r\n0\r\n\r\n'));
add('line-endings', 'bare LF after chunk data', (t) => req(t, ['Transfer-Encoding: chunked'], '5\r\nhello\n0\r\n\r\n'));
add('line-endings', 'bare LF ends the last chunk', (t) => req(t, ['Transfer-Encoding: chunked'], `5\r\nhello\r\n0\n\n${SMUG(t)}`));
add('line-endings', 'bare LF in a header value with TE after', (t) =>
  req(t, ['X-A: b\nTransfer-Encoding: chunked', 'Content-Length: 5'], 'hello'),
);

// --- Chunk syntax -------------------------------------------------------------------
const chunkVariants: [string, string][] = [
  ['extension', '5;foo=bar\r\nhello\r\n0\r\n\r\n'],
  ['quoted extension', '5;foo="b;a r"\r\nhello\r\n0\r\n\r\n'],
  ['extension with bare LF', '5;foo=b\nar\r\nhello\r\n0\r\n\r\n'],
  ['extension with NUL', '5;foo=\x00\r\nhello\r\n0\r\n\r\n'],
  ['uppercase hex size', 'A\r\nhelloworld\r\n0\r\n\r\n'],
  ['mixed-case hex size', 'aB\r\n' + 'x'.repeat(0xab) + '\r\n0\r\n\r\n'],
  ['leading zeros in size', '0005\r\nhello\r\n0\r\n\r\n'],
  ['size overflow (18 f)', 'ffffffffffffffffff\r\nhello\r\n0\r\n\r\n'],
  ['size 2^64 + 5', '10000000000000005\r\nhello\r\n0\r\n\r\n'],
  ['negative size', '-5\r\nhello\r\n0\r\n\r\n'],
  ['0x prefix', '0x5\r\nhello\r\n0\r\n\r\n'],
  ['space after size', '5 \r\nhello\r\n0\r\n\r\n'],
  ['space before size', ' 5\r\nhello\r\n0\r\n\r\n'],
  ['tab after size', '5\t\r\nhello\r\n0\r\n\r\n'],
  ['missing CRLF after data', '5\r\nhello0\r\n\r\n'],
  ['more data than the size', '3\r\nhello\r\n0\r\n\r\n'],
  ['less data than the size', '7\r\nhello\r\n0\r\n\r\n'],
  ['last chunk then a body', '0\r\n\r\nhello'],
  ['valid trailer', '5\r\nhello\r\n0\r\nX-Trailer: a\r\n\r\n'],
  ['trailer without a colon', '5\r\nhello\r\n0\r\nnot a header\r\n\r\n'],
  ['trailer with obs-fold', '5\r\nhello\r\n0\r\nX-T: a\r\n b\r\n\r\n'],
  ['Content-Length trailer', '5\r\nhello\r\n0\r\nContent-Length: 100\r\n\r\n'],
  ['missing final CRLF', '5\r\nhello\r\n0\r\n'],
  ['empty size line', '\r\nhello\r\n0\r\n\r\n'],
  ['chunk size then EOF mid-data', '10\r\nhel'],
  ['long chunk extension (20 KiB)', `5;${'e'.repeat(20_000)}\r\nhello\r\n0\r\n\r\n`],
];
for (const [label, body] of chunkVariants) {
  add('chunk-syntax', `chunked: ${label}`, (t) => req(t, ['Transfer-Encoding: chunked'], `${body}${SMUG(t)}`));
}

// --- Pipelining and splits ------------------------------------------------------------
add('pipelining', 'two GETs in one write', (t) => get(t, '/p1') + get(t, '/p2'));
add('pipelining', 'ten GETs in one write', (t) => Array.from({ length: 10 }, (_, i) => get(t, `/p${i}`)).join(''));
add('pipelining', 'POST with CL body then GET', (t) => req(t, ['Content-Length: 5'], 'hello') + get(t));
add('pipelining', 'chunked POST then GET in one write', (t) => req(t, ['Transfer-Encoding: chunked'], '5\r\nhello\r\n0\r\n\r\n') + get(t));
add('pipelining', 'GET then garbage', (t) => `${get(t)}GARBAGE\r\n\r\n`);
add('pipelining', 'garbage then GET', (t) => `GARBAGE\r\n\r\n${get(t)}`);
add('pipelining', 'Connection: close then a pipelined GET', (t) => req(t, ['Connection: close'], '', 'GET', '/c') + SMUG(t));
add(
  'pipelining',
  'HTTP/1.0 without keep-alive then a pipelined GET',
  (t) => `GET ${t.url('/10')} HTTP/1.0\r\nHost: ${t.authority}\r\n\r\n${SMUG(t)}`,
);
add('pipelining', 'one request written a byte at a time', (t) => [...get(t, '/bytes')]);
add('pipelining', 'split inside CRLF CRLF', (t) => {
  const r = get(t, '/split');
  return [r.slice(0, -3), r.slice(-3, -1), r.slice(-1)];
});
add('pipelining', 'split between head and body, then next request', (t) => {
  const r = req(t, ['Content-Length: 5'], '');
  return [r, 'hel', `lo${get(t)}`];
});
add('pipelining', 'split inside a chunk size line', (t) => {
  const r = req(t, ['Transfer-Encoding: chunked'], '');
  return [r + '1', '0\r\n' + 'x'.repeat(16), '\r\n0\r\n\r\n', get(t)];
});
add('pipelining', 'two POSTs, second split at every third byte', (t) => {
  const second = req(t, ['Content-Length: 3'], 'abc', 'POST', '/second');
  const parts = [req(t, ['Content-Length: 3'], 'xyz')];
  for (let i = 0; i < second.length; i += 3) parts.push(second.slice(i, i + 3));
  return parts;
});
add('pipelining', 'HEAD then GET', (t) => `HEAD ${t.url('/h')} HTTP/1.1\r\nHost: ${t.authority}\r\n\r\n${get(t)}`);

// --- Request line ---------------------------------------------------------------------
const lineVariants: [string, (t: Target) => string][] = [
  ['double space after method', (t) => `GET  ${t.url('/x')} HTTP/1.1`],
  ['double space before version', (t) => `GET ${t.url('/x')}  HTTP/1.1`],
  ['tab separators', (t) => `GET\t${t.url('/x')}\tHTTP/1.1`],
  ['trailing space after version', (t) => `GET ${t.url('/x')} HTTP/1.1 `],
  ['HTTP/1.0', (t) => `GET ${t.url('/x')} HTTP/1.0`],
  ['HTTP/0.9 (no version)', (t) => `GET ${t.url('/x')}`],
  ['HTTP/2.0', (t) => `GET ${t.url('/x')} HTTP/2.0`],
  ['HTTP/1.2', (t) => `GET ${t.url('/x')} HTTP/1.2`],
  ['HTTP/3.0', (t) => `GET ${t.url('/x')} HTTP/3.0`],
  ['lowercase version', (t) => `GET ${t.url('/x')} http/1.1`],
  ['lowercase method', (t) => `get ${t.url('/x')} HTTP/1.1`],
  ['unknown method', (t) => `FROB ${t.url('/x')} HTTP/1.1`],
  ['method with a NUL', (t) => `GE\x00T ${t.url('/x')} HTTP/1.1`],
  ['target with a space', (t) => `GET ${t.url('/a b')} HTTP/1.1`],
  ['target with a fragment', (t) => `GET ${t.url('/x#frag')} HTTP/1.1`],
  ['target with raw non-ASCII', (t) => `GET ${t.url('/\xe9\xff')} HTTP/1.1`],
  ['target with a NUL', (t) => `GET ${t.url('/a\x00b')} HTTP/1.1`],
  ['very long target (60 KiB)', (t) => `GET ${t.url(`/${'a'.repeat(60_000)}`)} HTTP/1.1`],
  ['target longer than the header limit (70 KiB)', (t) => `GET ${t.url(`/${'a'.repeat(70_000)}`)} HTTP/1.1`],
  ['OPTIONS *', () => 'OPTIONS * HTTP/1.1'],
  ['GET *', () => 'GET * HTTP/1.1'],
  ['absolute-form with userinfo', (t) => `GET http://user:pw@${t.authority}/x HTTP/1.1`],
  ['absolute-form (also inside tunnels)', (t) => `GET http://${t.authority}/abs HTTP/1.1`],
  ['origin-form (also on the plain listener)', () => 'GET /origin-form HTTP/1.1'],
  ['authority-form on GET', (t) => `GET ${t.authority} HTTP/1.1`],
  ['PRI * HTTP/2.0 preface', () => 'PRI * HTTP/2.0\r\n\r\nSM'],
];
for (const [label, line] of lineVariants) {
  add('request-line', `request line: ${label}`, (t) => `${line(t)}\r\nHost: ${t.authority}\r\n\r\n${get(t, '/after')}`);
}
add('request-line', 'empty request line', (t) => `\r\nHost: ${t.authority}\r\n\r\n`);

// --- Host -----------------------------------------------------------------------------
const hostVariants: [string, (t: Target) => string[]][] = [
  ['missing', () => []],
  ['duplicate, equal', (t) => [`Host: ${t.authority}`, `Host: ${t.authority}`]],
  ['duplicate, different', (t) => [`Host: ${t.authority}`, 'Host: smuggled.example']],
  ['with userinfo', (t) => [`Host: user@${t.authority}`]],
  ['empty', () => ['Host:']],
  ['other host than the URI', () => ['Host: smuggled.example']],
  ['other port than the URI', () => ['Host: 127.0.0.1:1']],
  ['with a space inside', () => ['Host: 127.0.0.1 :80']],
  ['with a path', (t) => [`Host: ${t.authority}/smuggled`]],
  ['lowercase name', (t) => [`host: ${t.authority}`]],
];
for (const [label, lines] of hostVariants) {
  add(
    'host',
    `Host ${label}`,
    (t) =>
      `GET ${t.url('/h')} HTTP/1.1\r\n${lines(t)
        .map((l) => `${l}\r\n`)
        .join('')}\r\n`,
  );
}
add('host', 'Host missing on HTTP/1.0', (t) => `GET ${t.url('/h')} HTTP/1.0\r\n\r\n`);

// --- Expect and Upgrade ----------------------------------------------------------------
add('expect', 'Expect: 100-continue with a body sent at once', (t) => req(t, ['Expect: 100-continue', 'Content-Length: 5'], 'hello'));
add('expect', 'Expect: 100-continue, body in a second write', (t) => [req(t, ['Expect: 100-continue', 'Content-Length: 5'], ''), 'hello']);
add('expect', 'Expect: 100-continue on a GET without body', (t) => req(t, ['Expect: 100-continue'], '', 'GET'));
add('expect', 'Expect: something-else', (t) => req(t, ['Expect: x-unknown', 'Content-Length: 5'], 'hello'));
add('upgrade', 'Upgrade: h2c with HTTP2-Settings', (t) =>
  req(t, ['Connection: Upgrade, HTTP2-Settings', 'Upgrade: h2c', 'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA'], '', 'GET'),
);
add('upgrade', 'Upgrade: websocket without a key', (t) => req(t, ['Connection: Upgrade', 'Upgrade: websocket'], '', 'GET'));
add('upgrade', 'Upgrade without Connection: Upgrade', (t) => req(t, ['Upgrade: websocket'], '', 'GET'));
add('upgrade', 'Upgrade with a Content-Length body', (t) =>
  req(t, ['Connection: Upgrade', 'Upgrade: websocket', 'Content-Length: 5'], 'hello'),
);
add('upgrade', 'Upgrade then a pipelined request', (t) => req(t, ['Connection: Upgrade', 'Upgrade: h2c'], '', 'GET') + SMUG(t));

// --- Other header oddities ---------------------------------------------------------------
add('headers', 'header name with a space', (t) => req(t, ['Foo Bar: x'], '', 'GET'));
add('headers', 'empty header name', (t) => req(t, [': x'], '', 'GET'));
add('headers', 'header line without a colon', (t) => req(t, ['NoColon'], '', 'GET'));
add('headers', 'NUL in a header value', (t) => req(t, ['X-A: a\x00b'], '', 'GET'));
add('headers', 'DEL in a header value', (t) => req(t, ['X-A: a\x7fb'], '', 'GET'));
add('headers', 'obs-fold in an ordinary header', (t) => req(t, ['X-A: a', ' b'], '', 'GET'));
add('headers', 'Connection lists Content-Length', (t) => req(t, ['Connection: Content-Length', 'Content-Length: 5'], 'hello'));
add('headers', 'Connection lists Transfer-Encoding', (t) =>
  req(t, ['Connection: Transfer-Encoding', 'Transfer-Encoding: chunked'], '5\r\nhello\r\n0\r\n\r\n'),
);
add('headers', 'Connection lists Host', (t) => req(t, ['Connection: Host'], '', 'GET'));
add('headers', '1,100 header lines', (t) =>
  req(
    t,
    Array.from({ length: 1100 }, (_, i) => `X-H${i}: v`),
    '',
    'GET',
  ),
);
add('headers', 'one header of 70 KiB', (t) => req(t, [`X-Big: ${'b'.repeat(70_000)}`], '', 'GET'));
add('headers', 'one header of 40 KiB', (t) => req(t, [`X-Big: ${'b'.repeat(40_000)}`], '', 'GET'));
add('headers', 'Proxy-Connection and Keep-Alive', (t) => req(t, ['Proxy-Connection: keep-alive', 'Keep-Alive: timeout=5'], '', 'GET'));

export const SMUGGLING_CASES: readonly SmuggleCase[] = cases;
