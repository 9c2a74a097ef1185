/**
 * fast-proxy as a forward proxy. It is built for one upstream (`base`), so the
 * launcher takes the origin's base URL as argv[3]; its default keep-alive
 * http.Agent is used. argv: <dataDir> <originBase>
 */
import http from 'node:http';
import type net from 'node:net';
import fastProxy from 'fast-proxy';
import { ready } from '../lib/child.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/peers/fast-proxy.ts <dataDir> <originBase>

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

const base = process.argv[3]!;
const { proxy } = fastProxy({ base });
const server = http.createServer((req, res) => {
  const u = new URL(req.url!);
  proxy(req, res, u.pathname + u.search, {});
});
server.on('connection', (s: net.Socket) => s.setNoDelay(true));
server.listen(0, '127.0.0.1', () => ready({ port: (server.address() as net.AddressInfo).port }));
