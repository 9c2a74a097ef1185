/**
 * Large bodies through the intercepting proxy: 64 MiB up and down, byte for byte, on
 * HTTP/1.1 and HTTP/2 client legs (curl, a real client, in its own process); the proxy
 * holds no more than its capture limit of a body; and while one side stops reading, the
 * proxy (in its own process, its RSS read from /proc) does not take the body in.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testProxy } from './harness.js';
import { spawnProxy, type ProxyProcess } from '../reliability/proxy-process.js';

const SIZE = 64 * 1024 * 1024;
const CHUNK = 64 * 1024;

interface Origin {
  url: string;
  /** sha256 of the last download it sent. */
  lastDownloadSha: string;
  /** While true, /upload does not read its body (the client must be held back, not the proxy fill up). */
  holdUploads: boolean;
  close(): void;
}

/** HTTPS/1.1 origin: /upload answers `{bytes, sha}` of the body; /download sends SIZE random bytes with backpressure. */
async function startOrigin(cert: { certPem: string; keyPem: string }): Promise<Origin> {
  const sockets = new Set<net.Socket>();
  const origin: Origin = { url: '', lastDownloadSha: '', holdUploads: false, close: () => {} };
  const server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    if (req.url === '/upload') {
      if (origin.holdUploads) return; // never read: the request stays open until the client gives up
      const hash = crypto.createHash('sha256');
      let bytes = 0;
      req.on('data', (c: Buffer) => {
        bytes += c.length;
        hash.update(c);
      });
      req.on('end', () => res.end(JSON.stringify({ bytes, sha: hash.digest('hex') })));
      return;
    }
    const hash = crypto.createHash('sha256');
    let left = SIZE;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': SIZE });
    const pump = () => {
      while (left > 0) {
        const chunk = crypto.randomBytes(Math.min(CHUNK, left));
        left -= chunk.length;
        hash.update(chunk);
        if (left === 0) origin.lastDownloadSha = hash.digest('hex');
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin.url = `https://localhost:${(server.address() as net.AddressInfo).port}`;
  origin.close = () => {
    for (const s of sockets) s.destroy();
    server.close();
  };
  return origin;
}

/** Runs curl; its stdout is hashed as it streams (never held), its exit code and stderr kept. */
function curl(args: string[]): Promise<{ code: number | null; sha: string; bytes: number; head: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('curl', ['-sS', ...args]);
    const hash = crypto.createHash('sha256');
    let bytes = 0;
    let head = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      bytes += c.length;
      hash.update(c);
      if (head.length < 1024) head += c.subarray(0, 1024).toString('latin1');
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('close', (code) => resolve({ code, sha: hash.digest('hex'), bytes, head, stderr }));
  });
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)![1]) / 1024;
}

/** The largest rise of the process's RSS while `run` runs (sampled every 10 ms). */
async function rssGrowth(pid: number, run: () => Promise<unknown>): Promise<number> {
  const before = rssMiB(pid);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 10);
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssMiB(pid)) - before;
}

let proxy: ProxyProcess;
let origin: Origin;
let dir: string;
let uploadFile: string;
let uploadSha: string;

beforeAll(async () => {
  proxy = await spawnProxy();
  origin = await startOrigin(proxy.ca.issue(['localhost', '127.0.0.1']));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-large-'));
  uploadFile = path.join(dir, 'upload.bin');
  const body = crypto.randomBytes(SIZE);
  uploadSha = crypto.createHash('sha256').update(body).digest('hex');
  fs.writeFileSync(uploadFile, body);
  // Warm: the first intercepted request loads the upstream client, issues a certificate and grows the heap, tens of MiB
  // that are no body's; the RSS bounds below are about bodies.
  const small = path.join(dir, 'small.bin');
  fs.writeFileSync(small, 'x');
  for (const leg of ['--http1.1', '--http2']) {
    const r = await curl([...viaProxy(), leg, '-T', small, '-X', 'POST', `${origin.url}/upload`]);
    if (r.code !== 0) throw new Error(`warm-up request failed: ${r.stderr}`);
  }
}, 60_000);
afterAll(async () => {
  origin?.close();
  await proxy?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const viaProxy = () => ['-x', `http://127.0.0.1:${proxy.port}`, '--cacert', proxy.ca.certPath];

describe('64 MiB bodies through the intercepting proxy', () => {
  for (const leg of ['--http1.1', '--http2'] as const) {
    it(`upload arrives byte for byte (${leg} client leg)`, async () => {
      const r = await curl([...viaProxy(), leg, '-T', uploadFile, '-X', 'POST', '--max-time', '120', `${origin.url}/upload`]);
      expect(r.code, r.stderr).toBe(0);
      // The answer is the origin's account of what it received.
      expect(JSON.parse(r.head)).toEqual({ bytes: SIZE, sha: uploadSha });
    }, 130_000);

    it(`download arrives byte for byte (${leg} client leg)`, async () => {
      const r = await curl([...viaProxy(), leg, '--max-time', '120', `${origin.url}/download`]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.bytes).toBe(SIZE);
      expect(r.sha).toBe(origin.lastDownloadSha);
    }, 130_000);
  }
});

describe('backpressure: a side that stops reading holds the other back, the proxy does not take the body in', () => {
  // A proxy that buffered would take in the whole 64 MiB within the 3 s; one that holds back keeps
  // what the windows and socket buffers allow (the HTTP/2 stream window is 8 MiB). The bound leaves
  // room for garbage not yet collected, and stays under the body's size.
  const BOUND_MIB = 40;
  for (const leg of ['--http1.1', '--http2'] as const) {
    it(`an origin that does not read the upload (${leg} client leg)`, async () => {
      origin.holdUploads = true;
      try {
        const growth = await rssGrowth(proxy.pid, () =>
          curl([...viaProxy(), leg, '-T', uploadFile, '-X', 'POST', '--max-time', '3', `${origin.url}/upload`]).then((r) =>
            expect(r.code, r.stderr).toBe(28),
          ),
        );
        expect(growth).toBeLessThan(BOUND_MIB);
      } finally {
        origin.holdUploads = false;
      }
      expect(proxy.exited()).toBeNull();
    }, 30_000);

    it(`a client that reads the download at 1 MiB/s (${leg} client leg)`, async () => {
      const growth = await rssGrowth(proxy.pid, () =>
        curl([...viaProxy(), leg, '--limit-rate', '1M', '--max-time', '3', `${origin.url}/download`]).then((r) =>
          expect(r.code, r.stderr).toBe(28),
        ),
      );
      expect(growth).toBeLessThan(BOUND_MIB);
      expect(proxy.exited()).toBeNull();
    }, 30_000);
  }
});

describe('capture of a large body', () => {
  it('keeps the capture limit of a 64 MiB upload and counts all of it', async () => {
    const received: number[] = [];
    const plain = http.createServer((req, res) => {
      let n = 0;
      req.on('data', (c: Buffer) => (n += c.length));
      req.on('end', () => {
        received.push(n);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    const tp = await testProxy({ bodyCaptureLimit: 4 * 1024 * 1024 });
    try {
      const port = (plain.address() as net.AddressInfo).port;
      const r = await curl([
        '-x',
        tp.proxy.address.url,
        '-T',
        uploadFile,
        '-X',
        'POST',
        '--max-time',
        '120',
        `http://127.0.0.1:${port}/up`,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(received).toEqual([SIZE]);
      const [x] = await tp.waitFor(1);
      expect(x!.request.body).toMatchObject({ size: SIZE, truncated: true });
      expect(x!.request.body.bytes.length).toBe(4 * 1024 * 1024);
    } finally {
      await tp.stop();
      plain.close();
    }
  }, 130_000);
});
