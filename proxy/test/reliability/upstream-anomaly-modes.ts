/**
 * The upstream-anomaly corpus's modes (upstream-anomalies.test.ts runs them): what real
 * origins do wrong, each with one line of why, what the client must get, what the
 * exchange must record and how many requests the origin must see.
 */
import http2 from 'node:http2';
import type tls from 'node:tls';
import { trickle, type Respond } from './anomaly-origin.js';

export interface Mode {
  name: string;
  /** One line: why a real origin does this. */
  why: string;
  respond: Respond;
  method?: string;
  /** Requests the client sends one after another (the expectations are about the last). */
  steps?: number;
  client: { status: number; body?: string; complete?: boolean } | 'closed';
  /** Error code recorded for the (last) exchange, or null for a clean exchange. */
  code: string | null;
  message?: RegExp;
  /** Requests the origin saw in total for this mode. */
  requests: number;
}

const CRLF = '\r\n';
const send =
  (text: string): Respond =>
  (s) =>
    s.write(text);
const sendEnd =
  (text: string): Respond =>
  (s) =>
    s.end(text);
export const ok = (extra = '') => `HTTP/1.1 200 OK${CRLF}Content-Length: 2${CRLF}${extra}${CRLF}ok`;

export const modes: Mode[] = [
  // Baselines: the corpus's own origin, answering well.
  {
    name: 'ok-length',
    why: 'baseline: Content-Length body',
    respond: send(ok()),
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 1,
  },
  {
    name: 'ok-chunked',
    why: 'baseline: chunked body',
    respond: send(`HTTP/1.1 200 OK${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}2${CRLF}ok${CRLF}0${CRLF}${CRLF}`),
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 1,
  },
  // Closes and resets.
  {
    name: 'close-before-byte',
    why: 'origin closes a connection it will not serve (restart, overload): nothing was sent, so a GET is retried',
    respond: (s) => s.end(),
    client: 'closed',
    code: 'NL_UPSTREAM_RESET',
    requests: 3,
  },
  {
    name: 'rst-before-byte',
    why: 'origin resets at once (crash, firewall)',
    respond: (s) => s.resetAndDestroy(),
    client: 'closed',
    code: 'NL_UPSTREAM_RESET',
    requests: 3,
  },
  {
    name: 'close-mid-status',
    why: 'origin dies while writing the status line: it answered, so no retry',
    respond: sendEnd('HTTP/1.1 20'),
    client: 'closed',
    code: 'NL_UPSTREAM_RESET',
    requests: 1,
  },
  {
    name: 'close-mid-head',
    why: 'origin dies in the middle of its headers',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Content-Le`),
    client: 'closed',
    code: 'NL_UPSTREAM_RESET',
    requests: 1,
  },
  {
    name: 'close-mid-body-length',
    why: 'origin dies mid-body (Content-Length not reached)',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Content-Length: 100${CRLF}${CRLF}partial`),
    client: { status: 200, complete: false },
    code: 'NL_UPSTREAM_RESET',
    message: /closed/,
    requests: 1,
  },
  {
    name: 'close-mid-body-chunked',
    why: 'origin dies mid-body (no last chunk)',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}7${CRLF}partial${CRLF}`),
    client: { status: 200, complete: false },
    code: 'NL_UPSTREAM_RESET',
    requests: 1,
  },
  {
    name: 'rst-after-head',
    why: 'origin resets after the head (worker killed mid-response)',
    respond: (s) => {
      s.write(`HTTP/1.1 200 OK${CRLF}Content-Length: 100${CRLF}${CRLF}`);
      setTimeout(() => s.resetAndDestroy(), 50);
    },
    client: 'closed',
    code: 'NL_UPSTREAM_RESET',
    requests: 1,
  },
  // Not HTTP, or not HTTP/1.1.
  {
    name: 'bad-status-line',
    why: 'status code not three digits',
    respond: sendEnd(`HTTP/1.1 abc OK${CRLF}${CRLF}`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_INVALID_STATUS/,
    requests: 1,
  },
  {
    name: 'status-two-digits',
    why: 'status code too short',
    respond: sendEnd(`HTTP/1.1 20 OK${CRLF}Content-Length: 0${CRLF}${CRLF}`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    requests: 1,
  },
  {
    name: 'not-http',
    why: 'something else listens on the port (an SSH banner, a custom protocol)',
    respond: sendEnd(`SSH-2.0-OpenSSH_9.6${CRLF}`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_INVALID_CONSTANT/,
    requests: 1,
  },
  {
    name: 'http09',
    why: 'HTTP/0.9 style: a bare body, no status line',
    respond: sendEnd('<html>hello</html>'),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_INVALID_CONSTANT/,
    requests: 1,
  },
  {
    name: 'http2-version',
    why: 'an "HTTP/2.0" status line on HTTP/1 framing: llhttp takes any d.d version; well framed, so forwarded',
    respond: sendEnd(`HTTP/2.0 200 OK${CRLF}Content-Length: 2${CRLF}${CRLF}ok`),
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 1,
  },
  {
    name: 'http10-read-to-close',
    why: 'HTTP/1.0 without a length: the body ends when the connection does',
    respond: sendEnd(`HTTP/1.0 200 OK${CRLF}${CRLF}the whole body`),
    client: { status: 200, body: 'the whole body' },
    code: null,
    requests: 1,
  },
  {
    name: 'http11-read-to-close',
    why: 'HTTP/1.1, Connection: close and no length',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Connection: close${CRLF}${CRLF}until close`),
    client: { status: 200, body: 'until close' },
    code: null,
    requests: 1,
  },
  // Chunked framing.
  {
    name: 'bad-chunk-size',
    why: 'chunk size is not hex',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}zz${CRLF}hello${CRLF}0${CRLF}${CRLF}`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_INVALID_CHUNK_SIZE/,
    requests: 1,
  },
  {
    name: 'chunk-size-overflow',
    why: 'chunk size beyond 64 bits',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}fffffffffffffffff${CRLF}x${CRLF}`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_INVALID_CHUNK_SIZE/,
    requests: 1,
  },
  {
    name: 'chunk-extensions',
    why: 'chunk extensions (legal, rarely used)',
    respond: send(`HTTP/1.1 200 OK${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}5;name=value${CRLF}hello${CRLF}0${CRLF}${CRLF}`),
    client: { status: 200, body: 'hello' },
    code: null,
    requests: 1,
  },
  {
    name: 'trailers',
    why: 'trailer fields after the last chunk (gRPC-web, checksums)',
    respond: send(
      `HTTP/1.1 200 OK${CRLF}Transfer-Encoding: chunked${CRLF}Trailer: X-Sum${CRLF}${CRLF}2${CRLF}ok${CRLF}0${CRLF}X-Sum: 1${CRLF}${CRLF}`,
    ),
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 1,
  },
  {
    name: 'chunk-missing-crlf',
    why: 'chunk data not followed by CRLF',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}2${CRLF}okXX0${CRLF}${CRLF}`),
    client: { status: 200, complete: false },
    code: 'NL_UPSTREAM_PROTOCOL',
    requests: 1,
  },
  // Header syntax.
  {
    name: 'huge-head',
    why: 'a 100 KiB header (runaway cookie)',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}X-Big: ${'a'.repeat(100 * 1024)}${CRLF}Content-Length: 2${CRLF}${CRLF}ok`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_HEADER_OVERFLOW/,
    requests: 1,
  },
  {
    name: 'header-no-colon',
    why: 'a header line without a colon',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}BadHeader${CRLF}Content-Length: 2${CRLF}${CRLF}ok`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_INVALID_HEADER_TOKEN/,
    requests: 1,
  },
  {
    name: 'obs-fold',
    why: 'obsolete line folding (RFC 9112 §5.2)',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}X-Folded: a${CRLF} b${CRLF}Content-Length: 2${CRLF}${CRLF}ok`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    requests: 1,
  },
  {
    name: 'nul-in-header',
    why: 'a NUL byte in a header value',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}X-A: a\0b${CRLF}Content-Length: 2${CRLF}${CRLF}ok`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_INVALID_HEADER_TOKEN/,
    requests: 1,
  },
  {
    name: 'space-before-colon',
    why: 'whitespace between field name and colon (a smuggling vector)',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Content-Length : 2${CRLF}${CRLF}ok`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    requests: 1,
  },
  {
    name: 'bare-lf',
    why: 'LF-only line endings',
    respond: sendEnd('HTTP/1.1 200 OK\nContent-Length: 2\n\nok'),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_CR_EXPECTED/,
    requests: 1,
  },
  {
    name: 'no-reason-phrase',
    why: 'status line without a reason phrase (legal)',
    respond: send(`HTTP/1.1 200 ${CRLF}Content-Length: 2${CRLF}${CRLF}ok`),
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 1,
  },
  {
    name: 'odd-status',
    why: 'an unregistered status code (299)',
    respond: send(`HTTP/1.1 299 Whatever${CRLF}Content-Length: 2${CRLF}${CRLF}ok`),
    client: { status: 299, body: 'ok' },
    code: null,
    requests: 1,
  },
  // Message length.
  {
    name: 'dup-cl-equal',
    why: 'Content-Length twice, same value',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Content-Length: 2${CRLF}Content-Length: 2${CRLF}${CRLF}ok`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_UNEXPECTED_CONTENT_LENGTH/,
    requests: 1,
  },
  {
    name: 'dup-cl-different',
    why: 'Content-Length twice, different values (response splitting)',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Content-Length: 2${CRLF}Content-Length: 5${CRLF}${CRLF}ok`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_UNEXPECTED_CONTENT_LENGTH/,
    requests: 1,
  },
  {
    name: 'cl-and-te',
    why: 'both Content-Length and chunked',
    respond: sendEnd(
      `HTTP/1.1 200 OK${CRLF}Content-Length: 50${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}2${CRLF}ok${CRLF}0${CRLF}${CRLF}`,
    ),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_INVALID_TRANSFER_ENCODING/,
    requests: 1,
  },
  {
    name: 'te-gzip-only',
    why: 'Transfer-Encoding without chunked: the body runs to close (RFC 9112 §6.3)',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Transfer-Encoding: gzip${CRLF}${CRLF}raw`),
    client: { status: 200, body: 'raw' },
    code: null,
    requests: 1,
  },
  {
    name: 'invalid-cl',
    why: 'Content-Length not a number',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Content-Length: abc${CRLF}${CRLF}ok`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_INVALID_CONTENT_LENGTH/,
    requests: 1,
  },
  {
    name: 'negative-cl',
    why: 'negative Content-Length',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Content-Length: -1${CRLF}${CRLF}ok`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_INVALID_CONTENT_LENGTH/,
    requests: 1,
  },
  {
    name: 'overflow-cl',
    why: 'Content-Length beyond 64 bits',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Content-Length: 99999999999999999999999${CRLF}${CRLF}ok`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /HPE_INVALID_CONTENT_LENGTH/,
    requests: 1,
  },
  {
    name: 'extra-after-body',
    why: 'more bytes than Content-Length (the connection is not reused)',
    respond: send(`HTTP/1.1 200 OK${CRLF}Content-Length: 2${CRLF}${CRLF}okGARBAGE`),
    steps: 2,
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 2,
  },
  // Bodies that are not there by definition.
  {
    name: 'head-with-length',
    why: 'HEAD answered with the GET length and no body (legal)',
    respond: send(`HTTP/1.1 200 OK${CRLF}Content-Length: 1234${CRLF}${CRLF}`),
    method: 'HEAD',
    steps: 2,
    client: { status: 200, body: '' },
    code: null,
    requests: 2,
  },
  {
    name: '304-with-length',
    why: '304 with the full response length and no body (legal, RFC 9110 §8.6)',
    respond: send(`HTTP/1.1 304 Not Modified${CRLF}Content-Length: 10${CRLF}${CRLF}`),
    client: { status: 304, body: '' },
    code: null,
    requests: 1,
  },
  {
    name: '204-with-body',
    why: '204 followed by body bytes it must not have',
    respond: send(`HTTP/1.1 204 No Content${CRLF}Content-Length: 5${CRLF}${CRLF}hello`),
    steps: 2,
    client: { status: 204, body: '' },
    code: null,
    requests: 2,
  },
  {
    name: '304-with-body',
    why: '304 followed by body bytes it must not have',
    respond: send(`HTTP/1.1 304 Not Modified${CRLF}Content-Length: 5${CRLF}${CRLF}hello`),
    steps: 2,
    client: { status: 304, body: '' },
    code: null,
    requests: 2,
  },
  {
    name: 'obs-text-header',
    why: 'bytes ≥ 0x80 (UTF-8 é) in a header value: obs-text, legal, forwarded',
    respond: send(`HTTP/1.1 200 OK${CRLF}X-Name: caf\u00e9${CRLF}Content-Length: 2${CRLF}${CRLF}ok`),
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 1,
  },
  // Interim responses.
  {
    name: 'continue-then-final',
    why: '100 Continue to a request that did not ask (RFC 9110 §15.2: the client must cope)',
    respond: send(`HTTP/1.1 100 Continue${CRLF}${CRLF}${ok()}`),
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 1,
  },
  {
    name: 'continue-split',
    why: '100 Continue split across writes, then the final response',
    respond: (s) => {
      s.write('HTTP/1.1 10');
      setTimeout(() => s.write(`0 Continue${CRLF}`), 20);
      setTimeout(() => s.write(`${CRLF}${ok()}`), 40);
    },
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 1,
  },
  {
    name: 'early-hints',
    why: '103 Early Hints before the final response',
    respond: send(`HTTP/1.1 103 Early Hints${CRLF}Link: </a.css>; rel=preload${CRLF}${CRLF}${ok()}`),
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 1,
  },
  {
    name: '1xx-storm',
    why: '200 interim responses (100 and 103) before the final one',
    respond: send(`${`HTTP/1.1 100 Continue${CRLF}${CRLF}HTTP/1.1 103 Early Hints${CRLF}${CRLF}`.repeat(100)}${ok()}`),
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 1,
  },
  {
    name: 'huge-interim',
    why: 'a 100 Continue head of 20 KiB: past the 16 KiB an interim head may have, refused rather than buffered',
    respond: send(`HTTP/1.1 100 Continue${CRLF}X-Pad: ${'p'.repeat(20 * 1024)}${CRLF}${CRLF}${ok()}`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    requests: 1,
  },
  {
    name: 'continue-then-close',
    why: '100 Continue and then the origin dies: it answered, so no retry',
    respond: sendEnd(`HTTP/1.1 100 Continue${CRLF}${CRLF}`),
    client: 'closed',
    code: 'NL_UPSTREAM_RESET',
    requests: 1,
  },
  {
    name: '101-no-upgrade',
    why: '101 Switching Protocols to a request that asked for no upgrade',
    respond: send(`HTTP/1.1 101 Switching Protocols${CRLF}${CRLF}`),
    client: 'closed',
    code: 'NL_UPSTREAM_PROTOCOL',
    message: /101/,
    requests: 1,
  },
  // Connection management.
  {
    name: 'close-then-more',
    why: 'Connection: close, then more bytes anyway',
    respond: sendEnd(`HTTP/1.1 200 OK${CRLF}Connection: close${CRLF}Content-Length: 2${CRLF}${CRLF}okHTTP/1.1 200 OK${CRLF}${CRLF}`),
    steps: 2,
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 2,
  },
  {
    name: 'keepalive-race',
    why: 'origin closed an idle keep-alive connection as the next request went out: retried on a new one',
    respond: (s, c) => (c.seen.has('keepalive-race') ? s.destroy() : s.write(ok())),
    steps: 2,
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 3,
  },
  {
    name: 'unsolicited-on-idle',
    why: 'bytes on an idle keep-alive connection, answering nothing',
    respond: (s) => {
      s.write(ok());
      setTimeout(() => s.write(ok()), 20);
    },
    steps: 2,
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 2,
  },
  {
    name: 'slow-trickle',
    why: 'an origin that writes one byte every 10 ms',
    respond: (s) => trickle(s, ok(), 10),
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 1,
  },
  {
    name: 'silent',
    why: 'an origin that accepts and never answers: the response-head timeout',
    respond: () => {},
    client: 'closed',
    code: 'NL_UPSTREAM_TIMEOUT',
    requests: 1,
  },
  {
    name: 'many-set-cookie',
    why: '200 Set-Cookie headers, all forwarded',
    respond: send(
      `HTTP/1.1 200 OK${CRLF}${Array.from({ length: 200 }, (_, i) => `Set-Cookie: c${i}=1${CRLF}`).join('')}Content-Length: 2${CRLF}${CRLF}ok`,
    ),
    client: { status: 200, body: 'ok' },
    code: null,
    requests: 1,
  },
];

/** HTTP/2 origin modes: the stream's behaviour is chosen by its :path. */
export type H2Respond = (stream: http2.ServerHttp2Stream, session: http2.ServerHttp2Session) => void;
export interface H2Mode {
  name: string;
  why: string;
  respond: H2Respond;
  client: { status: number; body?: string; complete?: boolean } | 'closed';
  code: string | null;
  /** Streams the origin saw for this mode. */
  streams: number;
}

export const h2Modes: H2Mode[] = [
  {
    name: 'h2-ok',
    why: 'baseline: an HTTP/2 origin answering well',
    respond: (st) => {
      st.respond({ ':status': 200 });
      st.end('ok');
    },
    client: { status: 200, body: 'ok' },
    code: null,
    streams: 1,
  },
  {
    name: 'h2-rst-internal',
    why: 'RST_STREAM INTERNAL_ERROR before any response (the request may have run: no retry)',
    respond: (st) => st.close(http2.constants.NGHTTP2_INTERNAL_ERROR),
    client: 'closed',
    code: 'NL_UPSTREAM_RESET',
    streams: 1,
  },
  {
    name: 'h2-refused-stream',
    why: 'RST_STREAM REFUSED_STREAM: not processed (RFC 9113 §8.7), so retried, then given up',
    respond: (st) => st.close(http2.constants.NGHTTP2_REFUSED_STREAM),
    client: 'closed',
    code: 'NL_UPSTREAM_RESET',
    streams: 3,
  },
  {
    name: 'h2-rst-mid-body',
    why: 'RST_STREAM after the head and part of the body',
    respond: (st) => {
      st.respond({ ':status': 200, 'content-length': '100' });
      st.write('part', () => setTimeout(() => st.close(http2.constants.NGHTTP2_INTERNAL_ERROR), 50));
    },
    client: { status: 200, complete: false },
    code: 'NL_UPSTREAM_RESET',
    streams: 1,
  },
  {
    name: 'h2-goaway-after-response',
    why: 'GOAWAY right after a complete response (a server draining): the next request takes a new connection',
    respond: (st, se) => {
      st.respond({ ':status': 200 });
      st.end('ok', () => se.goaway(http2.constants.NGHTTP2_NO_ERROR));
    },
    client: { status: 200, body: 'ok' },
    code: null,
    streams: 1,
  },
  {
    name: 'h2-goaway-then-silence',
    why: 'GOAWAY covering the request (nghttp2 names it as processed), then nothing: the head timeout ends it, no retry',
    respond: (_st, se) => se.goaway(http2.constants.NGHTTP2_NO_ERROR, 0),
    client: 'closed',
    code: 'NL_UPSTREAM_TIMEOUT',
    streams: 1,
  },
  {
    name: 'h2-103-then-rst',
    why: '103 Early Hints, then RST_STREAM: the origin answered, so no retry',
    respond: (st) => {
      st.additionalHeaders({ ':status': 103 });
      setTimeout(() => st.close(http2.constants.NGHTTP2_REFUSED_STREAM), 20);
    },
    client: 'closed',
    code: 'NL_UPSTREAM_RESET',
    streams: 1,
  },
  {
    name: 'h2-session-destroy',
    why: 'the origin drops the whole connection mid-stream',
    respond: (st, se) => {
      st.respond({ ':status': 200 });
      st.write('part', () => setTimeout(() => se.destroy(), 50));
    },
    client: { status: 200, complete: false },
    code: 'NL_UPSTREAM_RESET',
    streams: 1,
  },
];

/** Origins that fail at the TLS or frame layer: one origin each. */
export interface TlsMode {
  name: string;
  why: string;
  alpn: string[];
  on: (s: tls.TLSSocket) => void;
  code: string;
  handshakes: number;
}

export const tlsModes: TlsMode[] = [
  {
    name: 'tls-close-after-handshake',
    why: 'TLS completes, then the origin closes without a byte of HTTP: retried, then a reset',
    alpn: ['http/1.1'],
    on: (s) => s.end(),
    code: 'NL_UPSTREAM_RESET',
    handshakes: 3,
  },
  {
    name: 'tls-h2-garbage-frames',
    why: 'ALPN says h2, then bytes that are not HTTP/2 frames',
    alpn: ['h2'],
    on: (s) => s.once('data', () => s.write(Buffer.alloc(64, 0xff))),
    code: 'NL_UPSTREAM_PROTOCOL',
    handshakes: 1,
  },
  {
    name: 'tls-h2-silent-close',
    why: 'ALPN says h2, then the origin closes before its SETTINGS (the stream is cancelled; not retried, conservatively)',
    alpn: ['h2'],
    on: (s) => s.once('data', () => s.end()),
    code: 'NL_UPSTREAM_RESET',
    handshakes: 1,
  },
];
