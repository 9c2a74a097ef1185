/**
 * The floor for a Node intercepting proxy: CONNECT accepted, TLS terminated by
 * node:https with a certificate from the bench CA, each request forwarded with
 * https.request over a keep-alive agent (Nagle off both ways) and piped back.
 * No recording, no timing, no header handling beyond node:http's. Whatever
 * Netlens spends above this is the cost of what it does on top.
 * argv: <dataDir> (holds the bench CA)
 */
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { loadOrCreateCA } from '../../proxy/src/tls/ca.js';
import { ready } from '../lib/child.js';
import { forwardHttps } from '../lib/https-forward.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/peers/node-minimal-mitm.ts <dataDir>

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

const ca = loadOrCreateCA(process.argv[2]!);
const agent = new https.Agent({ keepAlive: true, maxSockets: 256 });
const tlsServer = https.createServer({ SNICallback: (host, cb) => cb(null, ca.secureContext(host)) }, (req, res) => {
  const [host, port] = (req.headers.host ?? '').split(':');
  forwardHttps({ host: host ?? '', port: port ?? 443 }, agent, req, res);
});
tlsServer.on('secureConnection', (s: net.Socket) => s.setNoDelay(true));
const server = http.createServer((_req, res) => res.writeHead(400).end());
server.on('connect', (_req: http.IncomingMessage, socket: net.Socket) => {
  socket.setNoDelay(true);
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  tlsServer.emit('connection', socket);
});
server.listen(0, '127.0.0.1', () => ready({ port: (server.address() as net.AddressInfo).port }));
