/**
 * fast-check generators for the proxy fuzzer: mostly-valid HTTP/1.1 requests (a model
 * of method, target, version, headers, framing and body) serialised to bytes, then
 * corrupted (bytes spliced, cut or repeated) and split at random points across writes.
 * The target carries a tag (`/f<n>`) filled in at run time, so the origin's log says
 * which client a request came from.
 */
import fc from 'fast-check';

export interface FuzzRequest {
  method: string;
  path: string;
  version: string;
  hostMode: 'ok' | 'none' | 'twice' | 'other';
  headers: [string, string][];
  framing: 'none' | 'cl' | 'cl-wrong' | 'cl-odd' | 'chunked' | 'chunked-broken' | 'both';
  body: string;
  eol: string;
}

export interface FuzzCase {
  requests: FuzzRequest[];
  /** Byte-level damage applied to the serialised requests, in order. */
  corruptions: { kind: 'splice' | 'delete' | 'repeat'; at: number; len: number; bytes: string }[];
  /** Where the bytes are cut into writes (fractions of the length). */
  splits: number[];
}

const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const token = fc.string({ unit: fc.constantFrom(...TOKEN_CHARS), minLength: 1, maxLength: 12 });
/** Any byte as a latin1 character, with the interesting ones more likely. */
const anyByte = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.constantFrom('\r', '\n', '\t', '\x00', '\x0b', '\x0c', ' ', ':', ';', ',', '"', '\x7f', '\xff', '\x80') },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)) },
);
const anyString = (max: number) => fc.string({ unit: anyByte, maxLength: max });
const cleanValue = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 20 });

const headerName = fc.oneof(
  { weight: 8, arbitrary: token },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'Connection',
      'Expect',
      'Upgrade',
      'TE',
      'Trailer',
      'Keep-Alive',
      'Proxy-Connection',
      'Content-Type',
      'Accept',
      'Cookie',
    ),
  },
  // Framing headers with arbitrary values (the `framing` field adds well-formed ones).
  { weight: 1, arbitrary: fc.constantFrom('Content-Length', 'Transfer-Encoding', 'Host', 'content-length', 'transfer-encoding') },
  { weight: 1, arbitrary: anyString(12) },
);
const headerValue = fc.oneof(
  { weight: 8, arbitrary: cleanValue },
  {
    weight: 2,
    arbitrary: fc.constantFrom('chunked', 'close', 'keep-alive', '100-continue', 'websocket', 'h2c', '0', '5', '-1', '1, 2', 'identity'),
  },
  { weight: 1, arbitrary: fc.constantFrom('gzip, chunked', ' chunked', 'chunked ', 'chunked, identity') },
  { weight: 1, arbitrary: anyString(30) },
);

const wildRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.oneof(
    { weight: 30, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH') },
    { weight: 1, arbitrary: token },
    { weight: 1, arbitrary: anyString(8) },
  ),
  path: fc.oneof({ weight: 8, arbitrary: cleanValue.map((s) => s.replace(/[#]/g, '')) }, { weight: 1, arbitrary: anyString(30) }),
  version: fc.oneof(
    { weight: 20, arbitrary: fc.constant('HTTP/1.1') },
    { weight: 1, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', 'http/1.1', 'HTTP/1.1 ', '') },
  ),
  hostMode: fc.oneof(
    { weight: 20, arbitrary: fc.constant('ok' as const) },
    { weight: 1, arbitrary: fc.constantFrom('none' as const, 'twice' as const, 'other' as const) },
  ),
  headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 4 }),
  framing: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('none' as const, 'cl' as const, 'chunked' as const) },
    { weight: 1, arbitrary: fc.constantFrom('cl-wrong' as const, 'cl-odd' as const, 'chunked-broken' as const, 'both' as const) },
  ),
  body: fc.oneof({ weight: 3, arbitrary: cleanValue }, { weight: 1, arbitrary: anyString(60) }),
  eol: fc.oneof({ weight: 40, arbitrary: fc.constant('\r\n') }, { weight: 1, arbitrary: fc.constantFrom('\n', '\r', '\r\r\n') }),
});

/** A well-formed request (with random names, values and bodies): the corruptions and splits do the rest. */
const cleanRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH'),
  path: fc.string({ unit: fc.constantFrom(...'abcxyz0189-._~/?=&%'), maxLength: 20 }),
  version: fc.constant('HTTP/1.1'),
  hostMode: fc.constant('ok' as const),
  headers: fc.array(fc.tuple(token, cleanValue), { maxLength: 4 }),
  framing: fc.constantFrom('none' as const, 'cl' as const, 'chunked' as const),
  body: fc.oneof(cleanValue, anyString(60)),
  eol: fc.constant('\r\n'),
});

const request = fc.oneof({ weight: 3, arbitrary: cleanRequest }, { weight: 2, arbitrary: wildRequest });

export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.record({
  requests: fc.array(request, { minLength: 1, maxLength: 3 }),
  corruptions: fc.oneof(
    { weight: 4, arbitrary: fc.constant([] as FuzzCase['corruptions']) },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.record({
          kind: fc.constantFrom('splice' as const, 'delete' as const, 'repeat' as const),
          at: fc.double({ min: 0, max: 1, noNaN: true }),
          len: fc.integer({ min: 1, max: 8 }),
          bytes: anyString(6),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    },
  ),
  splits: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
});

function chunked(body: string, eol: string, broken: boolean): string {
  if (!broken) return body.length ? `${body.length.toString(16)}${eol}${body}${eol}0${eol}${eol}` : `0${eol}${eol}`;
  return `${(body.length + 3).toString(16)}${eol}${body}${eol}0${eol}`;
}

/** One request's bytes; `url(path)` gives the target form of the path (absolute or origin). */
export function serialise(r: FuzzRequest, tag: string, authority: string, url: (path: string) => string): string {
  const e = r.eol;
  const lines = [`${r.method} ${url(`/${tag}/${r.path}`)} ${r.version}`.trimEnd()];
  if (r.hostMode !== 'none') lines.push(`Host: ${r.hostMode === 'other' ? 'other.example' : authority}`);
  if (r.hostMode === 'twice') lines.push(`Host: ${authority}`);
  for (const [k, v] of r.headers) lines.push(`${k}: ${v}`);
  let body = '';
  switch (r.framing) {
    case 'cl':
      lines.push(`Content-Length: ${r.body.length}`);
      body = r.body;
      break;
    case 'cl-wrong':
      lines.push(`Content-Length: ${Math.max(0, r.body.length - 2)}`);
      body = r.body;
      break;
    case 'cl-odd':
      lines.push(`Content-Length: +${r.body.length}`, `Content-Length: ${r.body.length}`);
      body = r.body;
      break;
    case 'chunked':
    case 'chunked-broken':
      lines.push('Transfer-Encoding: chunked');
      body = chunked(r.body, e, r.framing === 'chunked-broken');
      break;
    case 'both':
      lines.push(`Content-Length: ${r.body.length}`, 'Transfer-Encoding: chunked');
      body = chunked(r.body, e, false);
      break;
  }
  return `${lines.join(e)}${e}${e}${body}`;
}

/** The case's bytes with corruptions applied, cut into writes. */
export function caseChunks(c: FuzzCase, tag: string, authority: string, url: (path: string) => string): Buffer[] {
  let bytes = c.requests.map((r, i) => serialise(r, `${tag}.${i}`, authority, url)).join('');
  for (const k of c.corruptions) {
    const at = Math.floor(k.at * bytes.length);
    if (k.kind === 'splice') bytes = bytes.slice(0, at) + k.bytes + bytes.slice(at);
    else if (k.kind === 'delete') bytes = bytes.slice(0, at) + bytes.slice(at + k.len);
    else bytes = bytes.slice(0, at) + bytes.slice(at, at + k.len).repeat(2) + bytes.slice(at + k.len);
  }
  const cuts = [...new Set(c.splits.map((s) => Math.floor(s * bytes.length)))]
    .filter((n) => n > 0 && n < bytes.length)
    .sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const n of [...cuts, bytes.length]) {
    out.push(Buffer.from(bytes.slice(prev, n), 'latin1'));
    prev = n;
  }
  return out;
}
