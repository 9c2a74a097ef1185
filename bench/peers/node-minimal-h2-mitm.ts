/**
 * The floor for a Node intercepting proxy over HTTP/2 on both legs: CONNECT
 * accepted, TLS terminated by node:http2 (ALPN h2) with a certificate from the
 * bench CA for the CONNECT host, each stream forwarded on one pooled
 * http2.connect session per origin and piped back. No recording, no timing,
 * no header handling beyond dropping the pseudo-headers node:http2 rebuilds.
 * Whatever Netlens spends above this on HTTP/2 is the cost of what it does on top.
 * argv: <dataDir> (holds the bench CA)
 */
import http from 'node:http';
import http2 from 'node:http2';
import type net from 'node:net';
import { loadOrCreateCA } from '../../proxy/src/tls/ca.js';
import { ready } from '../lib/child.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/peers/node-minimal-h2-mitm.ts <dataDir>

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

const ca = loadOrCreateCA(process.argv[2]!);
const sessions = new Map<string, http2.ClientHttp2Session>();
const servers = new Map<string, http2.Http2SecureServer>();

function upstream(authority: string): http2.ClientHttp2Session {
  let s = sessions.get(authority);
  if (!s || s.closed || s.destroyed) {
    s = http2.connect(`https://${authority}`, { ca: ca.certPem });
    s.on('error', () => sessions.delete(authority));
    sessions.set(authority, s);
  }
  return s;
}

// One TLS server per CONNECT host, so requests without SNI (IP targets) get a matching certificate.
function serverFor(authority: string): http2.Http2SecureServer {
  let server = servers.get(authority);
  if (server) return server;
  const { certPem, keyPem } = ca.hostCredentials(authority.replace(/:\d+$/, ''));
  server = http2.createSecureServer({ cert: certPem, key: keyPem, ALPNProtocols: ['h2'] });
  server.on('stream', (stream, headers) => {
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
