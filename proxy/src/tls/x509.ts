/**
 * X.509 certificates built from DER by hand and signed with node:crypto.
 *
 * Why not node-forge (which Netlens used before): forge signs in JavaScript
 * RSA, measured at 35–65 ms per host certificate on the bench machine — a
 * stall of the whole proxy's event loop at every first visit to a host — and
 * loading it costs ~10 MB of RSS. Node can sign natively (~1 ms) but cannot
 * build a certificate, and the libraries that can (@peculiar/x509, pkijs)
 * cost more memory than forge. A server certificate is a small fixed
 * structure (RFC 5280), so this file writes exactly that structure and
 * nothing else. Tests check every field with two independent parsers
 * (node:crypto's X509Certificate and node-forge) and by real TLS handshakes.
 */
import crypto from 'node:crypto';
import net from 'node:net';

// --- DER writer (ITU-T X.690): just the types a certificate uses -------------

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
}

const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const set = (...c: Buffer[]) => tlv(0x31, ...c);
const octets = (b: Buffer) => tlv(0x04, b);
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const nullValue = () => Buffer.from([0x05, 0x00]);
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
/** Context-specific explicit tag [n] (constructed). */
const explicit = (n: number, c: Buffer) => tlv(0xa0 | n, c);

/** A non-negative INTEGER from big-endian bytes (a leading 0 keeps it positive). */
function uint(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && b[1]! < 0x80) b = b.subarray(1);
  if (b[0]! >= 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const base128: number[] = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) base128.unshift(0x80 | (v & 0x7f));
    out.push(...base128);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280 §4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '') + 'Z';
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'latin1')) : tlv(0x18, Buffer.from(digits, 'latin1'));
}

/** BIT STRING with no unused bits. */
const bits = (b: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), b]));

// --- DER reader: enough to walk a certificate to its subject and public key ---

interface Element {
  tag: number;
  /** The whole element (tag, length, content). */
  raw: Buffer;
  content: Buffer;
}

function read(buf: Buffer, at = 0): Element & { end: number } {
  const tag = buf[at]!;
  let n = buf[at + 1]!;
  let off = at + 2;
  if (n & 0x80) {
    const count = n & 0x7f;
    n = 0;
    for (let i = 0; i < count; i++) n = n * 256 + buf[off + i]!;
    off += count;
  }
  if (off + n > buf.length) throw new Error('truncated DER');
  return { tag, raw: buf.subarray(at, off + n), content: buf.subarray(off, off + n), end: off + n };
}

function children(el: Element): Element[] {
  const out: Element[] = [];
  for (let at = 0; at < el.content.length;) {
    const c = read(el.content, at);
    out.push(c);
    at = c.end;
  }
  return out;
}

/** The subject Name (DER) of a certificate: what certificates it signs name as their issuer. */
export function subjectNameDer(certDer: Buffer): Buffer {
  const tbs = children(read(certDer))[0]!;
  const fields = children(tbs);
  const i = fields[0]!.tag === 0xa0 ? 1 : 0; // skip the optional [0] version
  // serialNumber, signature, issuer, validity, subject
  return fields[i + 4]!.raw;
}

/** Key identifier as forge and OpenSSL's default compute it: SHA-1 of the subjectPublicKey bits. */
export function keyIdentifier(spkiDer: Buffer): Buffer {
  const bitString = children(read(spkiDer))[1]!;
  return crypto.createHash('sha1').update(bitString.content.subarray(1)).digest();
}

// --- Certificates --------------------------------------------------------------

export interface NameAttributes {
  commonName: string;
  organization?: string;
  organizationalUnit?: string;
}

export function nameDer(a: NameAttributes): Buffer {
  const rdn = (type: string, value: string) => set(seq(oid(type), utf8(value)));
  return seq(
    rdn('2.5.4.3', a.commonName),
    ...(a.organization ? [rdn('2.5.4.10', a.organization)] : []),
    ...(a.organizationalUnit ? [rdn('2.5.4.11', a.organizationalUnit)] : []),
  );
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

/** KeyUsage bits (RFC 5280 §4.2.1.3), highest bit first; DER drops trailing zero bits. */
function keyUsage(flags: { digitalSignature?: boolean; keyEncipherment?: boolean; keyCertSign?: boolean; cRLSign?: boolean }): Buffer {
  const bitsSet = [flags.digitalSignature, false, flags.keyEncipherment, false, false, flags.keyCertSign, flags.cRLSign];
  let value = 0;
  bitsSet.forEach((on, i) => {
    if (on) value |= 0x80 >> i;
  });
  let unused = 0;
  while (unused < 8 && !(value & (1 << unused))) unused++;
  return tlv(0x03, Buffer.from([unused === 8 ? 0 : unused, value]));
}

function subjectAltName(names: string[]): Buffer {
  return seq(
    ...names.map((n) => {
      if (net.isIPv4(n)) return tlv(0x87, Buffer.from(n.split('.').map(Number)));
      if (net.isIPv6(n)) return tlv(0x87, ipv6Bytes(n));
      return tlv(0x82, Buffer.from(n, 'latin1')); // dNSName, IA5String
    }),
  );
}

function ipv6Bytes(addr: string): Buffer {
  const [head, tail = ''] = addr.split('::');
  const groups = (s: string) => (s ? s.split(':') : []);
  let h = groups(head!);
  let t = groups(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4) is two groups.
  const v4 = (g: string[]) => {
    const last = g.at(-1);
    if (!last || !net.isIPv4(last)) return g;
    const b = last.split('.').map(Number);
    return [...g.slice(0, -1), ((b[0]! << 8) | b[1]!).toString(16), ((b[2]! << 8) | b[3]!).toString(16)];
  };
  if (addr.includes('::')) t = v4(t);
  else h = v4(h);
  const fill = addr.includes('::') ? Array(8 - h.length - t.length).fill('0') : [];
  const all = [...h, ...fill, ...t];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

export interface CertificateSpec {
  /** Serial number, hex (positive, ≤ 20 bytes). */
  serialHex: string;
  issuer: Buffer;
  subject: Buffer;
  notBefore: Date;
  notAfter: Date;
  /** The certified public key, SubjectPublicKeyInfo DER. */
  spki: Buffer;
  /** SubjectPublicKeyInfo DER of the issuer's key (for the authority key identifier); omit for self-signed. */
  issuerSpki?: Buffer;
  /** A CA certificate (may sign others) or a TLS server certificate for `hosts`. */
  ca: boolean;
  hosts?: string[];
  /** Issuer's private key: signs with SHA-256 and RSA PKCS#1 v1.5. */
  signingKey: crypto.KeyObject;
}

const SHA256_WITH_RSA = () => seq(oid('1.2.840.113549.1.1.11'), nullValue());

/** Builds and signs a certificate; returns it as PEM. */
export function createCertificate(spec: CertificateSpec): string {
  const extensions: Buffer[] = spec.ca
    ? [
        extension('2.5.29.19', true, seq(bool(true))), // basicConstraints cA
        extension('2.5.29.15', true, keyUsage({ keyCertSign: true, cRLSign: true, digitalSignature: true })),
        extension('2.5.29.14', false, octets(keyIdentifier(spec.spki))),
      ]
    : [
        extension('2.5.29.19', false, seq()), // basicConstraints, not a CA
        extension('2.5.29.15', true, keyUsage({ digitalSignature: true, keyEncipherment: true })),
        extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage serverAuth
        extension('2.5.29.17', false, subjectAltName(spec.hosts ?? [])),
        extension('2.5.29.14', false, octets(keyIdentifier(spec.spki))),
        ...(spec.issuerSpki ? [extension('2.5.29.35', false, seq(tlv(0x80, keyIdentifier(spec.issuerSpki))))] : []),
      ];
  const tbs = seq(
    explicit(0, uint(Buffer.from([2]))), // v3
    uint(Buffer.from(spec.serialHex, 'hex')),
    SHA256_WITH_RSA(),
    spec.issuer,
    seq(time(spec.notBefore), time(spec.notAfter)),
    spec.subject,
    spec.spki,
    explicit(3, seq(...extensions)),
  );
  const signature = crypto.sign('sha256', tbs, spec.signingKey);
  const der = seq(tbs, SHA256_WITH_RSA(), bits(signature));
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
}

/** The DER bytes of a PEM certificate (throws on anything else). */
export function certificateDer(pem: string): Buffer {
  return Buffer.from(new crypto.X509Certificate(pem).raw);
}
