/**
 * Request rules a server applies before it acts on a request, applied the same
 * way on every client leg (plain, inside CONNECT, intercepted HTTP/1.1 and HTTP/2):
 *
 * - HTTP/1.x only on an HTTP/1 connection: llhttp accepts any `HTTP/d.d` request
 *   line, so `GET / HTTP/2.0` arrives here; it gets 505 (RFC 9110 §15.6.6).
 * - At most MAX_HEADER_COUNT header lines and maxHeaderSize bytes of head, else 431 (RFC 6585 §5). Node's HTTP/1
 *   server drops the lines past ~1,000 without a word (its parser's default
 *   maxHeaderPairs); the listeners are configured to keep one more than the limit
 *   so that a request over it is seen and refused, never forwarded truncated.
 * - HTTP/1.1 needs exactly one Host (RFC 9112 §3.2: a server MUST answer 400 to a
 *   request without Host or with more than one). Two Hosts are also how request
 *   smuggling picks a victim; undici refuses them, which blamed the origin.
 * - Asterisk-form (`OPTIONS *`) only with OPTIONS (RFC 9112 §3.2.4).
 */
import http from 'node:http';
import type { ClientRequest, RequestOrigin } from './client.js';
import { ErrorCodes, type ErrorCode } from '../errors.js';

/** Header lines accepted per request, on every client leg. */
export const MAX_HEADER_COUNT = 1000;

export interface Refusal {
  status: number;
  code: ErrorCode;
  message: string;
}

/** The request target as sent, when it is asterisk-form (`OPTIONS *`) or an authority-only absolute URI with OPTIONS. */
export function isAsteriskForm(req: ClientRequest, origin: RequestOrigin): boolean {
  if ((req.method ?? '').toUpperCase() !== 'OPTIONS') return false;
  const raw = req.url ?? '';
  if (raw === '*') return true;
  // RFC 9112 §3.2.4: `OPTIONS http://host:port HTTP/1.1` (no path) is forwarded as `OPTIONS * HTTP/1.1`.
  return origin.transport === 'plain' && /^https?:\/\/[^/?#]+$/i.test(raw);
}

/** Bytes of an HTTP/2 header list as an HTTP/1.1 head would carry it ("name: value\r\n"), for the same limit on both. */
function headBytes(rawHeaders: string[]): number {
  let n = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) n += rawHeaders[i]!.length + rawHeaders[i + 1]!.length + 4;
  return n;
}

/** @param maxHeaderSize the request-head limit in bytes; Node's HTTP/1 parser enforces it itself, HTTP/2 is checked here. */
export function checkRequest(req: ClientRequest, origin: RequestOrigin, maxHeaderSize: number): Refusal | null {
  const h1 = req instanceof http.IncomingMessage;
  if (h1 && req.httpVersionMajor !== 1) {
    return {
      status: 505,
      code: ErrorCodes.CLIENT_MALFORMED,
      message: `HTTP/${req.httpVersion} is not spoken on an HTTP/1 connection; this proxy takes HTTP/1.0 and HTTP/1.1 (and HTTP/2 negotiated by TLS ALPN)`,
    };
  }
  const lines = req.rawHeaders.length / 2;
  if (lines > MAX_HEADER_COUNT) {
    return {
      status: 431,
      code: ErrorCodes.REQUEST_HEADERS_TOO_LARGE,
      message: `The request has more than ${MAX_HEADER_COUNT} header lines`,
    };
  }
  if (!h1 && headBytes(req.rawHeaders) > maxHeaderSize) {
    return {
      status: 431,
      code: ErrorCodes.REQUEST_HEADERS_TOO_LARGE,
      message: `The request's headers are larger than ${maxHeaderSize} bytes`,
    };
  }
  if (req.url === '*' && !isAsteriskForm(req, origin)) {
    return { status: 400, code: ErrorCodes.CLIENT_MALFORMED, message: 'The request target "*" is only valid with OPTIONS' };
  }
  // Node's servers answer an unknown expectation with 417 themselves, outside the exchange
  // lifecycle (and out of turn with pipelined requests); the proxy's servers hand it here.
  const expect = req.headers.expect;
  if (expect !== undefined && String(expect).trim().toLowerCase() !== '100-continue') {
    return {
      status: 417,
      code: ErrorCodes.CLIENT_MALFORMED,
      message: `The request expects "${String(expect).slice(0, 200)}"; only "Expect: 100-continue" is understood`,
    };
  }
  if (!h1) return null;
  // RFC 9112 §6.3: a request whose Transfer-Encoding does not end in chunked has no
  // reliable length; a server MUST answer 400 and close. Node's parser refuses it too,
  // but only after it has handed the request over, so it must not go upstream as bodiless.
  const te = req.headers['transfer-encoding'];
  if (te !== undefined) {
    const last = String(te).split(',').pop()!.trim().toLowerCase();
    if (last !== 'chunked') {
      return {
        status: 400,
        code: ErrorCodes.CLIENT_MALFORMED,
        message: `Transfer-Encoding "${String(te).slice(0, 200)}" does not end in chunked: the body length is unknown`,
      };
    }
  }
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (req.rawHeaders[i]!.length === 4 && req.rawHeaders[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1)
    return {
      status: 400,
      code: ErrorCodes.CLIENT_MALFORMED,
      message: `The request has ${hosts} Host headers; HTTP/1.1 allows exactly one`,
    };
  if (hosts === 0 && req.httpVersionMinor >= 1) {
    return { status: 400, code: ErrorCodes.CLIENT_MALFORMED, message: 'The HTTP/1.1 request has no Host header; HTTP/1.1 requires one' };
  }
  return null;
}
