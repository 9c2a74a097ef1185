/**
 * mockttp (HTTP Toolkit's engine) as an intercepting proxy: every request
 * passed through, TLS terminated with the bench CA (so the same client trust
 * works), upstream certificates verified against it. argv: <dataDir> [h2]
 *
 * `h2` sets `http2: true`. mockttp's default, 'fallback', negotiates HTTP/2
 * only with clients that do not offer HTTP/1.1, so Chrome (which offers both)
 * would always get HTTP/1.1 and an "h2" page-load cell would measure HTTP/1.1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { getLocal } from 'mockttp';
import { ready } from '../lib/child.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/peers/mockttp.ts <dataDir> [h2]

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

const caDir = path.join(process.argv[2]!, 'ca');
const cert = fs.readFileSync(path.join(caDir, 'netlens-ca.pem'), 'utf8');
const key = fs.readFileSync(path.join(caDir, 'netlens-ca.key'), 'utf8');
const server = getLocal({ https: { cert, key }, recordTraffic: false, ...(process.argv[3] === 'h2' ? { http2: true as const } : {}) });
await server.start({ startPort: 20000, endPort: 60000 });
await server.forAnyRequest().thenPassThrough({ additionalTrustedCAs: [{ cert }] });
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
ready({ port: server.port });
