/**
 * The proxy settings a user edits (Settings in the UI, `configureProxy`): checked here, in the
 * core, so every transport and the desktop app get the same NL_* errors before anything restarts.
 *
 * Upstream CA files are kept as paths (what the user typed, shown back in Settings) and read at
 * each proxy start: a CA renewed on disk is picked up by "Apply & restart".
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { ErrorCodes, NetlensError } from '../errors.js';
import type { ProxyConfig } from './contract.js';

/** A CA bundle is a few KiB; Mozilla's whole root store is ~220 KiB. Larger is not a CA file. */
export const MAX_CA_FILE_BYTES = 1024 * 1024;
/** More files than anyone trusts by hand; bounds the work of each proxy start. */
export const MAX_CA_FILES = 32;
/** Per body, request and response each: captured bodies stay in memory with the live capture. */
export const MAX_BODY_CAPTURE_LIMIT = 64 * 1024 * 1024;

function bad(message: string): NetlensError {
  return new NetlensError(ErrorCodes.API_BAD_REQUEST, message);
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Reads one upstream CA file and returns its PEM text, or throws NL_UPSTREAM_CA_FILE saying what
 * is wrong with it (missing, a directory, too large, not PEM, a PEM that is not a certificate).
 */
export function readCAFile(file: string): string {
  const fail = (why: string) =>
    new NetlensError(
      ErrorCodes.UPSTREAM_CA_FILE,
      `Upstream CA file "${file}" ${why}. Give the path of a PEM certificate (-----BEGIN CERTIFICATE-----), e.g. the CA that signed your server.`,
    );
  const errCode = (err: unknown) => (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  if (!path.isAbsolute(file)) throw fail('is not an absolute path (the core does not know your working directory)');
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (err) {
    throw fail(errCode(err) === 'ENOENT' ? 'does not exist' : `cannot be read (${errCode(err)})`);
  }
  if (!st.isFile()) throw fail('is not a file');
  if (st.size > MAX_CA_FILE_BYTES) {
    throw fail(`is ${st.size.toLocaleString('en-US')} bytes, more than a CA file (at most ${MAX_CA_FILE_BYTES.toLocaleString('en-US')})`);
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw fail(`cannot be read (${errCode(err)})`);
  }
  const blocks = text.match(PEM_CERT);
  if (!blocks)
    throw fail(/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text) ? 'holds a private key, not a certificate' : 'is not a PEM certificate');
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (err) {
      throw fail(`holds a PEM block that is not a valid certificate (${(err as Error).message})`);
    }
  }
  return blocks.join('\n');
}

/** The PEM texts of every configured upstream CA file (checked again at each start: files change). */
export function readCAFiles(files: readonly string[]): string[] {
  return files.map(readCAFile);
}

/** Checks the untrusted `configureProxy`/`startProxy` argument and returns the settings it changes. */
export function proxyConfigPatch(a: Record<string, unknown>, command: string): Partial<ProxyConfig> {
  const patch: Partial<ProxyConfig> = {};
  if (a.port !== undefined) {
    if (!Number.isInteger(a.port) || (a.port as number) < 0 || (a.port as number) > 65535)
      throw bad(`${command}: "port" must be a whole number 0–65535`);
    patch.port = a.port as number;
  }
  for (const key of ['intercept', 'http2', 'nagle', 'insecureUpstream'] as const) {
    if (a[key] !== undefined) {
      if (typeof a[key] !== 'boolean') throw bad(`${command}: "${key}" must be true or false`);
      patch[key] = a[key] as boolean;
    }
  }
  if (a.bodyCaptureLimit !== undefined) {
    const v = a.bodyCaptureLimit;
    if (!Number.isInteger(v) || (v as number) < 0 || (v as number) > MAX_BODY_CAPTURE_LIMIT) {
      throw new NetlensError(
        ErrorCodes.API_BAD_REQUEST,
        `${command}: "bodyCaptureLimit" must be a whole number of bytes from 0 (record no bodies) ` +
          `to ${MAX_BODY_CAPTURE_LIMIT.toLocaleString('en-US')} (64 MiB), not ${JSON.stringify(v)}`,
      );
    }
    patch.bodyCaptureLimit = v as number;
  }
  if (a.upstreamCAFiles !== undefined) {
    const v = a.upstreamCAFiles;
    if (!Array.isArray(v) || v.some((f) => typeof f !== 'string')) throw bad(`${command}: "upstreamCAFiles" must be a list of file paths`);
    if (v.length > MAX_CA_FILES) throw bad(`${command}: "upstreamCAFiles" has ${v.length} files, at most ${MAX_CA_FILES}`);
    const files = [...new Set((v as string[]).map((f) => f.trim()).filter((f) => f.length > 0))];
    for (const f of files) {
      if (f.length > 4096) throw bad(`${command}: an upstream CA path is longer than 4,096 characters`);
      readCAFile(f);
    }
    patch.upstreamCAFiles = files;
  }
  return patch;
}

/**
 * Whether `port` on 127.0.0.1 can be listened on now: checked before a running proxy is stopped
 * for a port change, so a taken port leaves the working proxy as it was.
 */
export async function checkPortFree(port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      const pick = 'Pick another port, or 0 for any free port.';
      if (err.code === 'EADDRINUSE') {
        reject(new NetlensError(ErrorCodes.PORT_IN_USE, `Port ${port} on 127.0.0.1 is already in use by another program. ${pick}`));
      } else if (err.code === 'EACCES') {
        const why = `Port ${port} needs privileges this user does not have. Pick a port above 1023, or 0 for any free port.`;
        reject(new NetlensError(ErrorCodes.LISTEN_FAILED, why));
      } else {
        reject(new NetlensError(ErrorCodes.LISTEN_FAILED, `Cannot listen on 127.0.0.1:${port} (${err.code ?? err.message}). ${pick}`));
      }
    });
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve()));
  });
}
