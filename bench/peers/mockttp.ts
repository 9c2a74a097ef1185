/**
 * mockttp (HTTP Toolkit's engine) as an intercepting proxy: every request
 * passed through, TLS terminated with the bench CA (so the same client trust
 * works), upstream certificates verified against it. argv: <dataDir>
 */
import fs from 'node:fs';
import path from 'node:path';
import { getLocal } from 'mockttp';
import { ready } from '../lib/child.js';

const caDir = path.join(process.argv[2]!, 'ca');
const cert = fs.readFileSync(path.join(caDir, 'netlens-ca.pem'), 'utf8');
const key = fs.readFileSync(path.join(caDir, 'netlens-ca.key'), 'utf8');
const server = getLocal({ https: { cert, key }, recordTraffic: false });
await server.start({ startPort: 20000, endPort: 60000 });
await server.forAnyRequest().thenPassThrough({ additionalTrustedCAs: [{ cert }] });
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
ready({ port: server.port });
