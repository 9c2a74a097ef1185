/** httpxy (unjs) as a forward proxy: absolute-form URL split into target + path, keep-alive agent. */
import http from 'node:http';
import type net from 'node:net';
import { createProxyServer } from 'httpxy';
import { ready } from '../lib/child.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/peers/httpxy.ts

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const proxy = createProxyServer({ agent });
proxy.on('error', () => {});
const server = http.createServer((req, res) => {
  const u = new URL(req.url!);
  req.url = u.pathname + u.search;
  proxy.web(req, res, { target: u.origin }).catch(() => res.destroy());
});
server.on('connection', (s: net.Socket) => s.setNoDelay(true));
server.listen(0, '127.0.0.1', () => ready({ port: (server.address() as net.AddressInfo).port }));
