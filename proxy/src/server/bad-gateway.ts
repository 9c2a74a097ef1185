/**
 * The proxy's answer for an upstream failure that retrying will not fix (refused,
 * unknown host name, TLS verification: see isPermanentUpstreamFailure): `502 Bad
 * Gateway` with `X-Netlens-Error: <code>` and the one-line reason as text/plain, so
 * curl, a browser or a script sees why instead of an empty reply or a reset stream.
 * The exchange keeps its error (the source of truth) and records this 502 as its
 * response: it is what the client got. The HAR shows status 502 beside `_error`.
 */
import http from 'node:http';
import type { Exchange, HttpProtocol, RawHeaders } from '../model.js';
import { BodyCapturer } from './body-capture.js';
import { clientClosed, type ClientResponse, type ResponseHandle } from './client.js';

export const NETLENS_ERROR_HEADER = 'X-Netlens-Error';

/** Writes the 502 and records it on `x.response`; false when a response head already went out (then the caller resets). */
export function answerBadGateway(
  res: ClientResponse,
  x: Exchange,
  protocol: HttpProtocol,
  code: string,
  message: string,
  bodyUnread: boolean,
): boolean {
  if (res.headersSent || res.writableEnded || clientClosed(res)) return false;
  const body = Buffer.from(`${message.replace(/[\r\n]+/g, ' ').trim()}\n`);
  const headers: RawHeaders = [
    ['Content-Type', 'text/plain; charset=utf-8'],
    ['Content-Length', String(body.length)],
    ['Cache-Control', 'no-store'],
    [NETLENS_ERROR_HEADER, code],
  ];
  try {
    if (res instanceof http.ServerResponse) {
      // An unread request body would be parsed as the next request: close after the answer then.
      const all = bodyUnread ? [...headers, ['Connection', 'close'] as [string, string]] : headers;
      res.writeHead(502, 'Bad Gateway', all.flat() as unknown as http.OutgoingHttpHeaders);
    } else {
      res.writeHead(502, Object.fromEntries(headers.map(([k, v]) => [k.toLowerCase(), v])));
    }
    (res as ResponseHandle).end(body);
  } catch {
    return false;
  }
  const capture = new BodyCapturer(body.length);
  capture.push(body);
  x.response = { status: 502, statusText: 'Bad Gateway', httpVersion: protocol, headers, body: capture.result() };
  return true;
}
