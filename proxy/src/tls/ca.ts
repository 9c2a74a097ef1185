/**
 * The local certificate authority: created once per install in the data
 * directory, then used to sign a certificate for every host the proxy intercepts.
 *
 * Why one shared leaf key: Chrome's `--ignore-certificate-errors-spki-list`
 * trusts certificates by the hash of their *public key*, so when every host
 * certificate carries the same key, one hash (`leafSpkiHash`) lets a launched
 * browser trust all intercepted hosts without a blanket `--ignore-certificate-errors`.
 * It also saves a key generation per host.
 *
 * Keys are generated and certificates signed with Node's native crypto (see
 * x509.ts for why the certificates are built here rather than with node-forge).
 */
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { ErrorCodes, NetlensError } from '../errors.js';
import { CA_FILE_NAMES, loadOrCreateCAFiles } from './ca-store.js';
import { certificateDer, createCertificate, nameDer, subjectNameDer } from './x509.js';
import { LruMap } from './lru.js';

/** CA lifetime: long enough that users trust it once; it is local to this install. */
const CA_VALIDITY_YEARS = 10;
/** Leaf lifetime: under the 398-day limit browsers enforce on server certificates. */
const LEAF_VALIDITY_DAYS = 365;
/** Backdate notBefore a day so clocks that are a little behind still accept fresh certs. */
const BACKDATE_MS = 24 * 60 * 60 * 1000;
const RSA_BITS = 2048;

export interface CertificateAuthority {
  /** Directory holding the CA files (mode 0700). */
  dir: string;
  /** Path of the CA certificate (PEM) users import into their trust store. */
  certPath: string;
  /** Path of the CA private key (PEM, mode 0600). Never leaves the core. */
  keyPath: string;
  certPem: string;
  /** base64(sha256(SPKI DER)) of the shared leaf key, for `--ignore-certificate-errors-spki-list`. */
  leafSpkiHash: string;
  /** SHA-256 fingerprint of the CA certificate, colon-separated hex. */
  fingerprint: string;
  /** A certificate (PEM, with the CA appended as chain) and key for the given host names / IPs. */
  issue(hosts: string[]): { certPem: string; keyPem: string };
  /** The certificate chain and key for one host, signed once and cached in memory. */
  hostCredentials(host: string): { certPem: string; keyPem: string };
  /** A cached TLS secure context for a host (what the interceptor serves). */
  secureContext(host: string): tls.SecureContext;
  /**
   * Bounds the per-host caches (certificates and TLS contexts) to this many hosts, least
   * recently used dropped first (re-signed on next use, ~1 ms). Default DEFAULT_HOST_CACHE_SIZE.
   */
  limitHostCache(hosts: number): void;
}

/**
 * Hosts whose certificate and TLS context stay in memory. A secure context holds an
 * OpenSSL SSL_CTX with its chain and key: 34 KiB and 1.9 ms to build, measured; signing the
 * certificate takes 0.8 ms. 256 of them bound the cache to ~9 MiB however many hosts a long
 * session visits, while a browsing session's working set of hosts (tens to a few hundred)
 * rarely has to rebuild one.
 */
export const DEFAULT_HOST_CACHE_SIZE = 256;

interface CAFiles {
  certPath: string;
  keyPath: string;
  leafKeyPath: string;
}

function files(dir: string): CAFiles {
  return {
    certPath: path.join(dir, CA_FILE_NAMES.cert),
    keyPath: path.join(dir, CA_FILE_NAMES.key),
    leafKeyPath: path.join(dir, CA_FILE_NAMES.leaf),
  };
}

function generateKeyPem(): string {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: RSA_BITS, publicExponent: 0x10001 });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

function randomSerial(): string {
  // Positive 128-bit serial: clear the top bit so DER does not read it as negative.
  const bytes = crypto.randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}

function spkiDer(key: string | crypto.KeyObject): Buffer {
  const pub = typeof key !== 'string' && key.type === 'public' ? key : crypto.createPublicKey(key);
  return pub.export({ type: 'spki', format: 'der' });
}

function createCACert(caKeyPem: string): string {
  const now = Date.now();
  const name = nameDer({
    // Name the machine and date so users can tell installs apart in their trust store.
    commonName: `Netlens CA (${os.hostname().slice(0, 32)}, ${new Date(now).toISOString().slice(0, 10)})`,
    organization: 'Netlens',
    organizationalUnit: 'Local interception CA - do not share',
  });
  return createCertificate({
    serialHex: randomSerial(),
    issuer: name,
    subject: name,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + CA_VALIDITY_YEARS * 365 * 24 * 60 * 60 * 1000),
    spki: spkiDer(caKeyPem),
    ca: true,
    signingKey: crypto.createPrivateKey(caKeyPem),
  });
}

/** base64(sha256(SPKI DER)) of a key: the form Chrome's `--ignore-certificate-errors-spki-list` takes. */
export function spkiHash(key: string | crypto.KeyObject): string {
  return crypto.createHash('sha256').update(spkiDer(key)).digest('base64');
}

/**
 * Loads the CA from `dataDir/ca`, creating it (and the shared leaf key) on first use.
 * Creation is atomic and exclusive across processes; a directory missing one CA
 * file is an error (NL_CA_INCOMPLETE), never replaced (see ca-store.ts).
 * `warn` hears about key files whose loose mode was fixed (default: stderr).
 */
export function loadOrCreateCA(dataDir: string, options: { warn?: (message: string) => void } = {}): CertificateAuthority {
  const dir = path.join(dataDir, 'ca');
  const generators = {
    ca: () => {
      const keyPem = generateKeyPem();
      return { keyPem, certPem: createCACert(keyPem) };
    },
    leaf: generateKeyPem,
  };
  const warn = options.warn ?? ((message: string) => void process.stderr.write(message));
  const { caKeyPem, certPem, leafKeyPem } = loadOrCreateCAFiles(dataDir, generators, warn);
  // The same files as last time in this process: the same authority, its keys parsed and its hosts' certificates
  // and TLS contexts kept (see `authorities`). Other files (a CA made anew) make a new one.
  const contents = `${caKeyPem}\0${certPem}\0${leafKeyPem}`;
  const known = authorities.get(dir);
  if (known?.contents === contents) return known.ca;
  const ca = makeAuthority(dir, files(dir), caKeyPem, certPem, leafKeyPem);
  authorities.set(dir, { contents, ca });
  return ca;
}

/**
 * The authorities made in this process, per CA directory, with the file contents they were made from.
 *
 * Why: every proxy start loaded the CA anew, parsing its keys (about 3 ms of the lab proxy's main thread,
 * profiled for issue 17) and starting with no host certificate, so the first connection to each host
 * signed one and built its TLS context again (about 2 ms, see DEFAULT_HOST_CACHE_SIZE). The lab starts
 * a fresh proxy per page load, and the app one per settings change:
 * both paid it each time for the same hosts with the same CA. A few directories at most (the app and
 * the lab use one; tests use many, each briefly).
 */
const authorities = new LruMap<string, { contents: string; ca: CertificateAuthority }>(4);

function makeAuthority(dir: string, f: CAFiles, caKeyPem: string, certPem: string, leafKeyPem: string): CertificateAuthority {
  let caKey: crypto.KeyObject;
  let caName: Buffer;
  let caSpki: Buffer;
  let leafSpki: Buffer;
  try {
    caName = subjectNameDer(certificateDer(certPem));
    caKey = crypto.createPrivateKey(caKeyPem);
    caSpki = spkiDer(new crypto.X509Certificate(certPem).publicKey);
    leafSpki = spkiDer(leafKeyPem);
    // A key from one install and a certificate from another would sign certificates nobody trusts.
    if (!caSpki.equals(spkiDer(caKeyPem))) throw new Error('the CA key does not match the CA certificate');
  } catch (err) {
    throw new NetlensError(
      ErrorCodes.CA_STORE,
      `The Netlens CA files in ${dir} are damaged (${(err as Error).message}). Delete that directory to create a new CA (and trust the new one).`,
      { cause: err },
    );
  }
  const leafSpkiHash = spkiHash(leafKeyPem);
  const fingerprint = new crypto.X509Certificate(certPem).fingerprint256;
  const contexts = new LruMap<string, tls.SecureContext>(DEFAULT_HOST_CACHE_SIZE);
  const credentials = new LruMap<string, { certPem: string; keyPem: string }>(DEFAULT_HOST_CACHE_SIZE);
  const limitHostCache = (hosts: number) => {
    contexts.resize(hosts);
    credentials.resize(hosts);
  };

  const issue = (hosts: string[]): { certPem: string; keyPem: string } => {
    const names = [...new Set(hosts.map((h) => h.replace(/^\[|\]$/g, '').toLowerCase()))];
    const now = Date.now();
    const leaf = createCertificate({
      serialHex: randomSerial(),
      issuer: caName,
      // CN is ignored by modern clients (SAN rules) but some tools still display it; max 64 chars.
      subject: nameDer({ commonName: names[0]!.slice(0, 64), organization: 'Netlens' }),
      notBefore: new Date(now - BACKDATE_MS),
      notAfter: new Date(now + LEAF_VALIDITY_DAYS * 24 * 60 * 60 * 1000),
      spki: leafSpki,
      issuerSpki: caSpki,
      ca: false,
      hosts: names,
      signingKey: caKey,
    });
    return { certPem: leaf + certPem, keyPem: leafKeyPem };
  };

  const hostCredentials = (host: string) => {
    const key = host.toLowerCase();
    let c = credentials.get(key);
    if (!c) {
      c = issue([key]);
      credentials.set(key, c);
    }
    return c;
  };

  const secureContext = (host: string): tls.SecureContext => {
    const key = host.toLowerCase();
    let ctx = contexts.get(key);
    if (!ctx) {
      const { certPem: chain, keyPem } = hostCredentials(key);
      ctx = tls.createSecureContext({ cert: chain, key: keyPem });
      contexts.set(key, ctx);
    }
    return ctx;
  };

  return {
    dir,
    certPath: f.certPath,
    keyPath: f.keyPath,
    certPem,
    leafSpkiHash,
    fingerprint,
    issue,
    hostCredentials,
    secureContext,
    limitHostCache,
  };
}
