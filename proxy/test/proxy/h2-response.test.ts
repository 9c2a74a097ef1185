/**
 * respondH2 (server/h2-response.ts): the response head an HTTP/2 client gets from the upstream's raw headers,
 * written on the stream. What it strips and folds must match stripHopByHop + h2HeaderObject, the path it replaced.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { respondH2 } from '../../src/server/h2-response.js';
import { h2HeaderObject, stripHopByHop } from '../../src/headers.js';
import type { RawHeaders } from '../../src/model.js';

let server: http2.Http2Server;
let session: http2.ClientHttp2Session;
/** What the next stream answers with. */
let next: { status: number; headers: RawHeaders; thrown?: unknown };

beforeAll(async () => {
  server = http2.createServer();
  server.on('stream', (stream) => {
    try {
      respondH2(stream, next.status, next.headers);
      if (stream.headersSent && !stream.writableEnded) stream.end('body');
    } catch (err) {
      next.thrown = err;
      stream.respond({ ':status': 599 });
      stream.end();
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(async () => {
  session?.close();
  await new Promise((ok) => server?.close(ok));
});

function fetchHead(status: number, headers: RawHeaders): Promise<Record<string, unknown>> {
  next = { status, headers };
  return new Promise((resolve, reject) => {
    const st = session.request({ ':path': '/' });
    let head: Record<string, unknown> = {};
    st.on('response', (h) => (head = { ...h }));
    st.resume();
    st.on('end', () => resolve(head));
    st.on('error', reject);
  });
}

describe('respondH2', () => {
  it('strips hop-by-hop headers (and the names Connection lists), folds repeats, drops Host: as stripHopByHop + h2HeaderObject', async () => {
    const headers: RawHeaders = [
      ['Content-Type', 'text/plain'],
      ['X-Drop', 'listed in Connection'],
      ['Connection', 'close, X-Drop'],
      ['Keep-Alive', 'timeout=5'],
      ['Transfer-Encoding', 'chunked'],
      ['Set-Cookie', 'a=1'],
      ['set-cookie', 'b=2'],
      ['Host', 'example.test'],
      ['Date', 'Thu, 01 Jan 2026 00:00:00 GMT'],
    ];
    const head = await fetchHead(200, headers);
    const expected = h2HeaderObject(stripHopByHop(headers));
    expect(head).toMatchObject({ ':status': 200, ...expected });
    expect(head).not.toHaveProperty('x-drop');
    expect(head).not.toHaveProperty('connection');
    expect(head).not.toHaveProperty('keep-alive');
    expect(head).not.toHaveProperty('host');
    expect(head['set-cookie']).toEqual(['a=1', 'b=2']);
    // The origin's Date is kept as it was.
    expect(head.date).toBe('Thu, 01 Jan 2026 00:00:00 GMT');
  });

  it('without a Connection header the single pass gives the same head', async () => {
    const headers: RawHeaders = [
      ['Content-Type', 'image/png'],
      ['Cache-Control', 'max-age=60'],
      ['Upgrade', 'h2c'],
      ['Vary', 'Accept'],
      ['vary', 'Origin'],
    ];
    const head = await fetchHead(200, headers);
    // (node:http2's client joins a repeated header other than Set-Cookie with ", ".)
    expect(h2HeaderObject(stripHopByHop(headers))).toEqual({
      'content-type': 'image/png',
      'cache-control': 'max-age=60',
      vary: ['Accept', 'Origin'],
    });
    expect(head).toMatchObject({ ':status': 200, 'content-type': 'image/png', 'cache-control': 'max-age=60', vary: 'Accept, Origin' });
    expect(head).not.toHaveProperty('upgrade');
    // Node adds a Date when the origin sent none (as the compatibility response did).
    expect(typeof head.date).toBe('string');
  });

  it('a 204 loses its Content-Length (HTTP/2 clients reset the stream over it)', async () => {
    const head = await fetchHead(204, [
      ['Content-Length', '5'],
      ['X-Kept', 'yes'],
    ]);
    expect(head[':status']).toBe(204);
    expect(head).not.toHaveProperty('content-length');
    expect(head['x-kept']).toBe('yes');
  });

  it('a header name that is not a token throws (the caller reports the exchange as not forwardable)', async () => {
    const head = await fetchHead(200, [['Bad Name', 'x']]);
    expect(head[':status']).toBe(599);
    expect((next.thrown as NodeJS.ErrnoException).code).toBe('ERR_INVALID_HTTP_TOKEN');
  });
});
