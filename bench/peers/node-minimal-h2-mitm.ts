/**
 * The floor for a Node intercepting proxy over HTTP/2 on both legs: CONNECT
 * accepted, TLS terminated with a certificate from the bench CA for the CONNECT
 * host, each HTTP/2 stream (ALPN h2) forwarded on one pooled http2.connect
 * session per origin and piped back. No recording, no timing, no header
 * handling beyond dropping the pseudo-headers node:http2 rebuilds. Whatever
 * Netlens spends above this on HTTP/2 is the cost of what it does on top.
 *
 * Clients that offer only HTTP/1.1 (the lab's h1 via cell: Chrome with
 * --disable-http2) get the node:https floor's path instead: node:http parses,
 * https.request over a keep-alive agent forwards, piped. The TLS server picks
 * by ALPN and hands the socket to a plain http2 or http server, so neither
 * path pays for the other (node:http2's allowHTTP1 would route HTTP/2 streams
 * through its compatibility API as soon as an HTTP/1.1 handler is attached).
 *
 * With `h1-upstream` HTTP/2 streams are forwarded over https.request instead
 * (the bench's large-body origin speaks HTTP/1.1 only): the floor for curl's
 * default HTTP/2 client leg through an intercepting proxy to such an origin.
 *
 * Receive windows and session memory are Netlens's (8 MiB per client stream,
 * 15 MiB per connection both ways, 6 MiB per upstream stream, 64 MB of session
 * memory): settings, not code, and with HTTP/2's
 * 64 KiB defaults an upload stalls on WINDOW_UPDATEs, which would make the
 * floor slower than a proxy that only changed a setting.
 *
 * Upstream connections are closed when the last client connection closes, so
 * a lab run through this long-running peer opens its upstream connection as a
 * fresh Netlens per run does, instead of finding one already open.
 * argv: <dataDir> (holds the bench CA) [h1-upstream]
 */
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type net from 'node:net';
import tls from 'node:tls';
import { loadOrCreateCA } from '../../proxy/src/tls/ca.js';
import { ready } from '../lib/child.js';
import { forwardHttps } from '../lib/https-forward.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/peers/node-minimal-h2-mitm.ts <dataDir> [h1-upstream]

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

const ca = loadOrCreateCA(process.argv[2]!);
const h1Upstream = process.argv[3] === 'h1-upstream';
/** Netlens's windows (proxy/src/server/intercept-servers.ts, proxy/src/upstream/pool.ts). */
const CONNECTION_WINDOW = 15 * 1024 * 1024;
const CLIENT_SETTINGS: http2.Settings = { initialWindowSize: 8 << 20 };
const UPSTREAM_SETTINGS: http2.Settings = { initialWindowSize: 6 << 20 };
const sessions = new Map<string, http2.ClientHttp2Session>();
const agent = new https.Agent({ keepAlive: true, maxSockets: 256, ca: ca.certPem });
const servers = new Map<string, tls.Server>();
let clients = 0;

function upstream(authority: string): http2.ClientHttp2Session {
  let s = sessions.get(authority);
  if (!s || s.closed || s.destroyed) {
    s = http2.connect(`https://${authority}`, { ca: ca.certPem, settings: UPSTREAM_SETTINGS });
    s.once('connect', (session: http2.ClientHttp2Session) => session.setLocalWindowSize(CONNECTION_WINDOW));
    s.on('error', () => sessions.delete(authority));
    sessions.set(authority, s);
  }
  return s;
}

function forwardH2(authority: string, stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
  const out: http2.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (k !== ':scheme' && k !== ':authority') out[k] = v;
  const up = upstream(authority).request(out);
  up.on('response', (h) => {
    stream.respond(h);
    up.pipe(stream);
  });
  up.on('error', () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
  stream.on('error', () => up.close());
  stream.pipe(up);
}

/** HTTP/2 stream in, https.request out (HTTP/1.1 upstream), piped both ways; hop-by-hop response headers dropped. */
function forwardH2ToH1(authority: string, stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
  const out: http.OutgoingHttpHeaders = { host: authority };
  for (const [k, v] of Object.entries(headers)) if (k[0] !== ':') out[k] = v;
  const port = Number(/:(\d+)$/.exec(authority)?.[1] ?? 443);
  const up = https.request(
    { host: authority.replace(/:\d+$/, ''), port, method: headers[':method'], path: headers[':path'], headers: out, agent },
    (r) => {
      const h: http2.OutgoingHttpHeaders = { ':status': r.statusCode };
      for (const [k, v] of Object.entries(r.headers)) if (!HOP_BY_HOP.has(k)) h[k] = v;
      stream.respond(h);
      r.pipe(stream);
    },
  );
  up.on('socket', (sock: net.Socket) => sock.setNoDelay(true));
  up.on('error', () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
  stream.on('error', () => up.destroy());
  stream.pipe(up);
}
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

// One TLS server per CONNECT host, so requests without SNI (IP targets) get a matching certificate.
function serverFor(authority: string): tls.Server {
  let server = servers.get(authority);
  if (server) return server;
  const { certPem, keyPem } = ca.hostCredentials(authority.replace(/:\d+$/, ''));
  const h2 = http2.createServer({ settings: CLIENT_SETTINGS, maxSessionMemory: 64 });
  h2.on('session', (session) => session.setLocalWindowSize(CONNECTION_WINDOW));
  h2.on('stream', (stream, headers) => (h1Upstream ? forwardH2ToH1 : forwardH2)(authority, stream, headers));
  const h1 = http.createServer((req, res) =>
    forwardHttps({ host: authority.replace(/:\d+$/, ''), port: Number(/:(\d+)$/.exec(authority)?.[1] ?? 443) }, agent, req, res),
  );
  server = tls.createServer({ cert: certPem, key: keyPem, ALPNProtocols: ['h2', 'http/1.1'] }, (socket) => {
    clients++;
    // A client that ends its side (a browser closing or killed, without GOAWAY) is gone: node:http2 keeps the
    // session, and so the socket, open after that, so without this the count never fell back to 0 in the lab and
    // the upstream session stayed warm from one run to the next (every run after the first skipped the test site's
    // new-connection latency and TLS handshake, which Netlens's fresh proxy per run pays).
    socket.once('end', () => socket.destroy());
    socket.once('close', () => {
      if (--clients > 0) return;
      for (const s of sessions.values()) s.close();
      sessions.clear();
      agent.destroy();
    });
    (socket.alpnProtocol === 'h2' ? h2 : h1).emit('connection', socket);
  });
  servers.set(authority, server);
  return server;
}

const server = http.createServer((_req, res) => res.writeHead(400).end());
server.on('connect', (req: http.IncomingMessage, socket: net.Socket) => {
  socket.setNoDelay(true);
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  serverFor(req.url!).emit('connection', socket);
});
server.listen(0, '127.0.0.1', () => ready({ port: (server.address() as net.AddressInfo).port }));
