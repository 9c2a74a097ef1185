/** http-proxy-3 (the maintained rewrite of http-proxy) as a forward proxy, keep-alive agent. */
import http from 'node:http';
import type net from 'node:net';
import { createProxyServer } from 'http-proxy-3';
import { ready } from '../lib/child.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/peers/http-proxy-3.ts

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const proxy = createProxyServer({ agent });
proxy.on('error', (_err: Error, _req: unknown, res: unknown) => (res as http.ServerResponse).destroy?.());
const server = http.createServer((req, res) => {
  const u = new URL(req.url!);
  req.url = u.pathname + u.search;
  proxy.web(req, res, { target: u.origin });
});
server.on('connection', (s: net.Socket) => s.setNoDelay(true));
server.listen(0, '127.0.0.1', () => ready({ port: (server.address() as net.AddressInfo).port }));
