/**
 * http-mitm-proxy as an intercepting proxy with keep-alive upstream agents.
 * It keeps its own CA in sslCaDir; the launcher reports its path so clients
 * can trust it. Upstream trust comes from NODE_EXTRA_CA_CERTS (the bench CA).
 * argv: <dataDir>
 */
import path from 'node:path';
import { Proxy } from 'http-mitm-proxy';
import { ready } from '../lib/child.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/peers/http-mitm-proxy.ts <dataDir>

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

const sslCaDir = path.join(process.argv[2]!, 'http-mitm-proxy');
const proxy = new Proxy();
proxy.onError(() => {});
proxy.listen({ host: '127.0.0.1', port: 0, sslCaDir, keepAlive: true }, () => {
  ready({ port: proxy.httpPort, caPath: path.join(sslCaDir, 'certs', 'ca.pem') });
});
