/**
 * The floor for a Node forward proxy: a few lines of node:http with a
 * keep-alive agent and Nagle off. No parsing beyond what node:http does, no
 * recording. Absolute-form requests only (what wrk sends through a proxy).
 */
import http from 'node:http';
import type net from 'node:net';
import { ready } from '../lib/child.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/peers/node-minimal.ts

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const server = http.createServer((req, res) => {
  const u = new URL(req.url!);
  const up = http.request(
    { host: u.hostname, port: u.port, path: u.pathname + u.search, method: req.method, headers: req.headers, agent },
    (r) => {
      res.writeHead(r.statusCode!, r.headers);
      r.pipe(res);
    },
  );
  up.on('error', () => res.destroy());
  req.pipe(up);
});
server.on('connection', (s: net.Socket) => s.setNoDelay(true));
server.listen(0, '127.0.0.1', () => ready({ port: (server.address() as net.AddressInfo).port }));
