/**
 * `OPTIONS *` over HTTP/1.1 (RFC 9112 §3.2.4, asterisk-form). undici refuses any
 * request path that does not start with "/" (core/request.js), so this one request
 * form goes over Node's own client, on a connection of its own (agent: false): it is
 * rare, and a server-wide OPTIONS gains nothing from a pooled connection.
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { RawHeaders } from '../model.js';
import { flatFromPairs, pairsFromFlat } from '../headers.js';
import { connectionInfo, type UpstreamPool } from './pool.js';
import type { UpstreamRequest, UpstreamResponse } from './types.js';
import { ErrorCodes } from '../errors.js';

export function sendAsteriskH1(
  pool: UpstreamPool,
  req: UpstreamRequest,
  secure: boolean,
  host: string,
  port: number,
): Promise<UpstreamResponse> {
  const t = req.timestamps;
  return new Promise((resolve, reject) => {
    t.upstreamAssigned = performance.now();
    const options: https.RequestOptions = {
      host,
      port,
      method: req.method,
      path: '*',
      headers: flatFromPairs(req.headers as RawHeaders) as unknown as http.OutgoingHttpHeaders,
      agent: false,
      ...(secure ? { servername: host, secureContext: pool.secureContext, rejectUnauthorized: pool.rejectUnauthorized } : {}),
    };
    const out = (secure ? https : http).request(options);
    const timeout = () => Object.assign(new Error(`no response within ${req.timeoutMs} ms`), { code: ErrorCodes.UPSTREAM_TIMEOUT });
    const deadline = pool.deadlines.add(req.timeoutMs, () => out.destroy(timeout()));
    out.once('error', (err) => {
      deadline.clear();
      reject(err);
    });
    out.once('finish', () => (t.requestSent = performance.now()));
    out.once('response', (res) => {
      deadline.clear();
      t.responseHeaders = performance.now();
      const conn = connectionInfo(res.socket);
      resolve({
        status: res.statusCode ?? 0,
        statusText: res.statusMessage ?? '',
        headers: pairsFromFlat(res.rawHeaders),
        protocol: res.httpVersion === '1.0' ? 'http/1.0' : 'http/1.1',
        body: res,
        connection: conn,
        newConnection: true,
        serverIPAddress: res.socket.remoteAddress,
        retries: 0,
        abort: () => out.destroy(),
      });
    });
    if (req.body) {
      if (req.onBodyChunk) req.body.on('data', req.onBodyChunk);
      req.body.pipe(out);
    } else out.end();
  });
}
