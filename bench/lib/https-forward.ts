/**
 * The HTTP/1.1 forwarding of the minimal MITM floors (bench/peers/node-minimal-mitm.ts and the HTTP/1.1 path of
 * node-minimal-h2-mitm.ts): one https.request over a keep-alive agent, Nagle off, piped both ways. Nothing else.
 */
import type http from 'node:http';
import https from 'node:https';
import type net from 'node:net';

export function forwardHttps(
  target: { host: string; port: number | string },
  agent: https.Agent,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): void {
  const up = https.request({ ...target, path: req.url, method: req.method, headers: req.headers, agent }, (r) => {
    res.writeHead(r.statusCode!, r.headers);
    r.pipe(res);
  });
  up.on('socket', (s: net.Socket) => s.setNoDelay(true));
  up.on('error', () => res.destroy());
  req.pipe(up);
}
