/**
 * A long-lived CA creator for ca-concurrency.test.ts: reads one command per line
 * on stdin and answers one JSON line on stdout, so 8 of these can race on the
 * same empty directory trial after trial without 8 process spawns per trial.
 *   fast <dataDir>  loadOrCreateCAFiles with this worker's pregenerated key (a new certificate each time)
 *   real <dataDir>  loadOrCreateCA, exactly as the proxy does (two RSA key generations)
 */
import crypto from 'node:crypto';
import readline from 'node:readline';
import { loadOrCreateCAFiles } from '../../src/tls/ca-store.js';
import { loadOrCreateCA, spkiHash } from '../../src/tls/ca.js';
import { createCertificate, nameDer } from '../../src/tls/x509.js';

const key = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const keyPem = key.export({ type: 'pkcs8', format: 'pem' }).toString();
const spki = crypto.createPublicKey(key).export({ type: 'spki', format: 'der' });

function selfSigned(): string {
  const name = nameDer({ commonName: `race ${process.pid}`, organization: 'Netlens test' });
  const now = Date.now();
  const serialHex = crypto.randomBytes(16).toString('hex').replace(/^./, '1');
  const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) };
  return createCertificate({ serialHex, issuer: name, subject: name, ...validity, spki, ca: true, signingKey: key });
}

const fast = { ca: () => ({ keyPem, certPem: selfSigned() }), leaf: () => keyPem };

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const [mode, dir] = line.split(' ', 2);
  try {
    let answer: { fingerprint: string; leaf: string };
    if (mode === 'real') {
      const ca = loadOrCreateCA(dir!, { warn: () => {} });
      answer = { fingerprint: ca.fingerprint, leaf: ca.leafSpkiHash };
    } else {
      const files = loadOrCreateCAFiles(dir!, fast, () => {});
      answer = { fingerprint: new crypto.X509Certificate(files.certPem).fingerprint256, leaf: spkiHash(files.leafKeyPem) };
    }
    process.stdout.write(JSON.stringify(answer) + '\n');
  } catch (err) {
    process.stdout.write(JSON.stringify({ error: `${(err as { code?: string }).code}: ${(err as Error).message}` }) + '\n');
  }
});
process.stdout.write(JSON.stringify({ ready: true }) + '\n');
