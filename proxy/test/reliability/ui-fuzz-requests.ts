/**
 * fast-check generators of raw requests for `netlens serve`: malformed request
 * lines, targets with `//`, `\`, %-escapes, invalid UTF-8 and huge lengths,
 * bad and duplicated headers, WebSocket upgrades with and without the token,
 * and API commands (known and random names) with random JSON bodies.
 */
import fc from 'fast-check';
import { COMMAND_NAMES } from '../../src/api/contract.js';

/**
 * Commands that start listeners, browsers or lab runs are not fuzzed here: they have their
 * own tests, and a random argument could bind port 8080 or launch Chromium on this shared machine.
 */
const HEAVY = new Set(['startProxy', 'configureProxy', 'launchBrowser', 'startLab']);
export const FUZZED_COMMANDS = COMMAND_NAMES.filter((n) => !HEAVY.has(n));

export interface FuzzContext {
  port: number;
  token: string;
}

/** A request as parts, rendered to bytes once the port and token are known. */
export type RequestSpec = (ctx: FuzzContext) => Buffer;

const latin1 = (s: string) => Buffer.from(s, 'latin1');

/** Counterexamples print as the bytes sent (port and token as placeholders), not as a function's source. */
function printable(spec: RequestSpec): RequestSpec {
  const shown = () => JSON.stringify(spec({ port: 0, token: '<TOKEN>' }).subarray(0, 500).toString('latin1'));
  return Object.assign(spec, { [fc.toStringMethod]: shown });
}

/** Characters that break naive parsers: separators, escapes, controls, bytes ≥ 0x80 (invalid UTF-8 alone). */
const nastyChar = fc.oneof(
  fc.constantFrom('/', '\\', '%', '?', '#', '.', '..', '//', '%00', '%2e', '%2F', '%5C', '%E0%A4%A', '%ZZ', '%', '%%'),
  fc.constantFrom('~', ';', '@', ':', '[', ']', '{', '}', ' ', '\t', '"', "'", '<', '>'),
  fc.integer({ min: 0x80, max: 0xff }).map((b) => String.fromCharCode(b)),
  fc.integer({ min: 0, max: 0x1f }).map((b) => String.fromCharCode(b)),
  fc.string({ maxLength: 8, unit: 'binary' }),
  fc.integer({ min: 0, max: 255 }).map((n) => `%${n.toString(16).padStart(2, '0')}`),
);

const targetArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      ...[
        '//',
        '/\\',
        'http://[',
        '*',
        '',
        '/%E0%A4%A',
        '/%',
        '/..',
        '/api/',
        '/api/events',
        '/api/getStatus',
        '/index.html',
        '//api/getStatus',
      ],
      ...['/assets/../../../../etc/passwd', 'http://127.0.0.1/', '/?token=TOKEN', '/%E0%A4%A?token=TOKEN'],
    ),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constantFrom('/', '//', '/api/', '/assets/', '\\', 'http://', ''), fc.array(nastyChar, { maxLength: 12 }))
      .map(([p, xs]) => p + xs.join('')),
  },
  {
    // Huge targets: over Node's 16 KiB header limit (431) and far over it.
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('/', '/api/', '/assets/'),
        fc.constantFrom('a', '%41', '/', '%', '\\'),
        fc.integer({ min: 1_000, max: 200_000 }),
      )
      .map(([p, c, n]) => p + c.repeat(n)),
  },
);

const methodArb = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'CONNECT', 'TRACE', 'PRI') },
  { weight: 1, arbitrary: fc.constantFrom('get', 'G ET', 'GET\0', '', 'POST\t', 'ÜBER') },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
);

const versionArb = fc.constantFrom(
  'HTTP/1.1',
  'HTTP/1.1',
  'HTTP/1.0',
  'HTTP/2.0',
  'HTTP/0.9',
  'HTTP/1.1x',
  'http/1.1',
  '',
  'HTTP/1.1 extra',
);

type Header = (ctx: FuzzContext) => string;
const h =
  (line: string): Header =>
  () =>
    line;

const headerArb: fc.Arbitrary<Header> = fc.oneof(
  fc.constantFrom<Header>(
    (c) => `Host: 127.0.0.1:${c.port}`,
    (c) => `Host: localhost:${c.port}`,
    h('Host: evil.example'),
    h('Host:'),
    (c) => `Origin: http://127.0.0.1:${c.port}`,
    h('Origin: http://evil.example'),
    h('Origin: null'),
    (c) => `Authorization: Bearer ${c.token}`,
    h('Authorization: Bearer wrong'),
    h('Authorization: Basic x'),
    h('Content-Type: application/json'),
    h('Content-Type: text/plain'),
    h('Content-Length: 0'),
    h('Content-Length: 5'),
    h('Content-Length: -1'),
    h('Content-Length: 99999999999999999999'),
    h('Content-Length: 1, 2'),
    h('Transfer-Encoding: chunked'),
    h('Transfer-Encoding: gzip, chunked'),
    h('Expect: 100-continue'),
    h('Connection: Upgrade'),
    h('Connection: close'),
    h('Upgrade: websocket'),
    h('Upgrade: h2c'),
    h('Sec-WebSocket-Version: 13'),
    h('Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='),
    h('Sec-WebSocket-Key: short'),
    (c) => `Sec-WebSocket-Protocol: netlens, netlens.bearer.${c.token}`,
    h('Sec-WebSocket-Protocol: netlens.bearer.wrong'),
    h('Sec-WebSocket-Protocol: ,,,'),
    h('Sec-Fetch-Site: cross-site'),
    h('Cookie: netlens_token=x'),
    h('No colon here'),
    h(' Leading: space'),
    h('Bad Name: x'),
    h('X-Nul: a\0b'),
    h('X-Ctl: a\x7fb'),
    h('X-High: \xff\xfe'),
    h(`X-Long: ${'v'.repeat(20_000)}`),
  ),
  fc.tuple(fc.string({ maxLength: 10, unit: 'binary' }), fc.string({ maxLength: 20, unit: 'binary' })).map(([n, v]) => h(`${n}: ${v}`)),
);

const eolArb = fc.constantFrom('\r\n', '\r\n', '\r\n', '\n', '\r');

/** Anything: request line, headers and body assembled from the generators above, maybe cut short. */
const rawRequest: fc.Arbitrary<RequestSpec> = fc
  .record({
    method: methodArb,
    target: targetArb,
    version: versionArb,
    headers: fc.array(headerArb, { maxLength: 8 }),
    eol: eolArb,
    body: fc.oneof(
      fc.constant(''),
      fc.string({ maxLength: 64 }),
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('latin1')),
    ),
    cut: fc.option(fc.nat(), { nil: undefined }),
  })
  .map((r) =>
    printable((ctx: FuzzContext) => {
      const target = r.target.replace('TOKEN', ctx.token);
      const text = [`${r.method} ${target} ${r.version}`, ...r.headers.map((x) => x(ctx))].join(r.eol) + r.eol + r.eol + r.body;
      const bytes = latin1(text);
      return r.cut === undefined ? bytes : bytes.subarray(0, r.cut % (bytes.length + 1));
    }),
  );

/** A well-formed, authorized API call: a known or random command name, a random JSON body. */
const apiCall: fc.Arbitrary<RequestSpec> = fc
  .record({
    name: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...FUZZED_COMMANDS) },
      { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s)) },
    ),
    args: fc.oneof(
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 3 }),
      fc.dictionary(
        fc.constantFrom('id', 'index', 'side', 'name', 'text', 'fileName', 'runId', 'file', 'mode', 'url', 'port'),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    ),
    rawBody: fc.option(fc.constantFrom('{', '[1,', '"\\ud800"', 'nul', '{"id":"x"}garbage', '\xff\xfe{}'), { nil: undefined }),
  })
  .map((r) =>
    printable((ctx: FuzzContext) => {
      const body = latin1(r.rawBody ?? (r.args === undefined ? '' : JSON.stringify(r.args)));
      const head = [
        `POST /api/${r.name} HTTP/1.1`,
        `Host: 127.0.0.1:${ctx.port}`,
        `Authorization: Bearer ${ctx.token}`,
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
        '',
        '',
      ].join('\r\n');
      return Buffer.concat([latin1(head), body]);
    }),
  );

/** WebSocket upgrades to the event socket and elsewhere, with the token (header or subprotocol), a wrong one, or none. */
const upgrade: fc.Arbitrary<RequestSpec> = fc
  .record({
    target: fc.constantFrom('/api/events', '/api/events?token=TOKEN', '//', '/\\', 'http://[', '/', '/api/events/%', '/api/events%00'),
    auth: fc.constantFrom('bearer', 'protocol', 'wrong', 'none'),
    key: fc.constantFrom('dGhlIHNhbXBsZSBub25jZQ==', '', 'not base64', 'AAAAAAAAAAAAAAAAAAAAAA=='),
    version: fc.constantFrom('13', '8', ''),
    origin: fc.constantFrom('self', 'none', 'evil'),
    frames: fc.uint8Array({ maxLength: 32 }),
  })
  .map((r) =>
    printable((ctx: FuzzContext) => {
      const lines = [
        `GET ${r.target.replace('TOKEN', ctx.token)} HTTP/1.1`,
        `Host: 127.0.0.1:${ctx.port}`,
        'Connection: Upgrade',
        'Upgrade: websocket',
      ];
      lines.push(`Sec-WebSocket-Key: ${r.key}`, `Sec-WebSocket-Version: ${r.version}`);
      if (r.auth === 'bearer') lines.push(`Authorization: Bearer ${ctx.token}`);
      if (r.auth === 'protocol') lines.push(`Sec-WebSocket-Protocol: netlens, netlens.bearer.${ctx.token}`);
      if (r.auth === 'wrong') lines.push('Authorization: Bearer wrong');
      if (r.origin === 'self') lines.push(`Origin: http://127.0.0.1:${ctx.port}`);
      if (r.origin === 'evil') lines.push('Origin: http://evil.example');
      // Random bytes after the handshake: garbage WebSocket frames for an accepted socket.
      return Buffer.concat([latin1(`${lines.join('\r\n')}\r\n\r\n`), Buffer.from(r.frames)]);
    }),
  );

export const uiRequest: fc.Arbitrary<RequestSpec> = fc.oneof(
  { weight: 5, arbitrary: rawRequest },
  { weight: 3, arbitrary: apiCall },
  { weight: 2, arbitrary: upgrade },
);
