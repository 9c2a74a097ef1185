/**
 * An HTTP/2 origin that sends a response head and resets the stream at once (one write: HEADERS, then RST_STREAM
 * without END_STREAM). The head and the reset can reach the proxy in one read, so the upstream stream can close
 * before the handler has attached its listeners to it, and its listeners are removed when it closes
 * (upstream/h2-release.ts): the client must still see a reset, never a clean empty response or a hang, and the
 * exchange must be recorded as the origin's reset, over either client leg.
 */
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, httpsOrigin, loadOrCreateCA, tempDataDir, testProxy, type Origin, type TestProxy } from './harness.js';
import { ErrorCodes } from '../../src/errors.js';

describe('an HTTP/2 origin that resets the stream right after the response head', () => {
  const dataDir = tempDataDir();
  const ca = loadOrCreateCA(dataDir);
  let origin: Origin;
  let tp: TestProxy;
  beforeAll(async () => {
    origin = await httpsOrigin(ca, { h2: true }, (_req, res) => {
      const stream = (res as http2.Http2ServerResponse).stream;
      stream.respond({ ':status': 200 });
      // destroy(), not close(): close() would end the stream (END_STREAM) before its RST_STREAM.
      stream.destroy(new Error('the origin gave up after the head'));
    });
    tp = await testProxy({ dataDir, upstreamCA: [ca.certPem] });
  });
  afterAll(async () => {
    await tp.stop();
    await origin.close();
  });

  it('reaches an HTTP/2 client as a reset and an HTTP/1.1 client as a cut connection, recorded as the reset', async () => {
    const url = `https://localhost:${origin.port}/head-then-reset`;
    const direct = await curl(['--cacert', ca.certPath, '--http2', url], 5000);
    expect(direct.stderr).toContain('INTERNAL_ERROR');
    const h2 = await curl(['-x', tp.proxy.address.url, '--cacert', ca.certPath, '--http2', url], 5000);
    expect(h2.code).toBe(92); // curl: the HTTP/2 stream was not closed cleanly
    expect(h2.stderr).toContain('INTERNAL_ERROR');
    const h1 = await curl(['-x', tp.proxy.address.url, '--cacert', ca.certPath, '--http1.1', url], 5000);
    expect(h1.code).toBe(52); // curl: empty reply, the connection closed
    const exchanges = await tp.waitFor(2);
    expect(exchanges.map((x) => [x.upstreamProtocol, x.error?.code])).toEqual([
      ['h2', ErrorCodes.UPSTREAM_RESET],
      ['h2', ErrorCodes.UPSTREAM_RESET],
    ]);
  });
});
