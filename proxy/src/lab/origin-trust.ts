/**
 * Preflight of an https `--url` target, once before the lab's first run: a TLS
 * handshake with the origin that verifies its certificate the way the lab's
 * proxy will (system roots plus `--upstream-ca` files; nothing with
 * `--insecure`), and the SPKI hash of the leaf it presents.
 *
 * Why: the direct cells' Chrome has its own trust store and knows nothing of
 * the user's CA files. Trusting exactly the key this handshake saw
 * (`--ignore-certificate-errors-spki-list`, as for the Netlens leaf and the via
 * proxies) makes direct and proxy cells trust the same origin, without the
 * blanket `--ignore-certificate-errors`. And a certificate that will not verify
 * fails here with one message saying what to do (NL_UPSTREAM_TLS), not as N
 * failed page loads.
 */
import { rootsPlus } from '../tls/root-trust.js';
import net from 'node:net';
import tls from 'node:tls';
import { ErrorCodes, NetlensError } from '../errors.js';
import { spkiHash } from '../tls/ca.js';

export const ORIGIN_PROBE_TIMEOUT_MS = 10_000;

export interface OriginTrustOptions {
  /** Extra CA certificates (PEM contents), trusted in addition to the system roots. */
  upstreamCA?: string[];
  /** The Netlens CA: the proxy cells trust it upstream too (an origin it signed, like the test site, verifies). */
  netlensCA?: string;
  /** Accept any certificate (then the hash is of whatever key the origin presented). */
  insecure?: boolean;
  timeoutMs?: number;
}

export interface OriginLeaf {
  /** base64 SHA-256 of the leaf's SubjectPublicKeyInfo, the format Chrome's SPKI list takes. */
  spkiHash: string;
  /** Whether the certificate verified (always true unless insecure). */
  verified: boolean;
}

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

/** Node's certificate error codes that mean "not trusted" rather than "cannot connect". */
function isCertificateError(err: NodeJS.ErrnoException): boolean {
  const code = err.code ?? '';
  return /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT_ALTNAME|ISSUER|SIGNATURE|EXPIRED|NOT_YET_VALID/.test(code);
}

/**
 * Probes `target` (an https URL). Resolves with its leaf; resolves undefined
 * when the origin cannot be reached at all (the runs will then say why, as
 * before); rejects with NL_UPSTREAM_TLS when its certificate does not verify.
 */
export function probeOriginTrust(target: URL, options: OriginTrustOptions = {}): Promise<OriginLeaf | undefined> {
  const host = bare(target.hostname);
  const port = Number(target.port || 443);
  const timeoutMs = options.timeoutMs ?? ORIGIN_PROBE_TIMEOUT_MS;
  const extra = options.upstreamCA ?? [];
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host,
      port,
      // Chrome sends no SNI for IP addresses, and Node warns when given one; the host name check still applies.
      servername: net.isIP(host) === 0 ? host : undefined,
      secureContext: rootsPlus([...(options.netlensCA ? [options.netlensCA] : []), ...extra]),
      rejectUnauthorized: !options.insecure,
      ALPNProtocols: ['h2', 'http/1.1'],
    });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const timer = setTimeout(() => finish(() => resolve(undefined)), timeoutMs);
    socket.once('secureConnect', () => {
      const cert = socket.getPeerX509Certificate();
      finish(() => (cert ? resolve({ spkiHash: spkiHash(cert.publicKey), verified: socket.authorized }) : resolve(undefined)));
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      if (!isCertificateError(err)) return finish(() => resolve(undefined));
      const files = extra.length === 1 ? 'CA file given with --upstream-ca does' : `${extra.length} CA files given with --upstream-ca do`;
      const given = extra.length ? `the ${files} not verify it` : 'it is not signed by a CA this machine trusts';
      const what = extra.length
        ? 'Give the CA that issued this certificate (the root, or the intermediate if the server does not send it) with --upstream-ca FILE, ' +
          'check that the certificate names this host, or use --insecure for testing only.'
        : 'If it uses a private or self-signed certificate, give its CA (PEM) with --upstream-ca FILE (repeatable), ' +
          'or use --insecure for testing only.';
      const message = `the certificate of ${target.origin} did not verify (${err.message}): ${given}. ${what}`;
      finish(() => reject(new NetlensError(ErrorCodes.UPSTREAM_TLS, message, { cause: err })));
    });
    socket.once('close', () => finish(() => resolve(undefined)));
  });
}
