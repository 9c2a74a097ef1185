/** lab/warm-up.ts h2Requests: a page's GETs on one HTTP/2 session, at once in hundreds or paced as Chromium sends them. */
import fs from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_H2_STREAMS, h2Requests } from '../../src/lab/warm-up.js';
import { loadOrCreateCA, type CertificateAuthority } from '../../src/tls/ca.js';

let dataDir: string;
let ca: CertificateAuthority;
let server: http2.Http2SecureServer;
let target: URL;
/** The streams the server holds open, the most it saw at once, and the paths it answered. */
const seen = { open: 0, most: 0, paths: [] as string[] };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-h2-requests-'));
  ca = loadOrCreateCA(dataDir);
  const { certPem, keyPem } = ca.hostCredentials('127.0.0.1');
  // Holds every response until no new stream has come for 100 ms: a client that kept more than its limit open
  // would show it in `most`.
  let held: http2.ServerHttp2Stream[] = [];
  let timer: NodeJS.Timeout | undefined;
  const answer = () => {
    for (const s of held) {
      if (s.destroyed) continue;
      s.respond({ ':status': 200 });
      s.end('x');
    }
    held = [];
  };
  server = http2.createSecureServer({ cert: certPem, key: keyPem }, undefined);
  server.on('stream', (stream, headers) => {
    seen.paths.push(String(headers[':path']));
    seen.most = Math.max(seen.most, ++seen.open);
    stream.once('close', () => seen.open--);
    held.push(stream);
    clearTimeout(timer);
    timer = setTimeout(answer, 100);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target = new URL(`https://127.0.0.1:${(server.address() as { port: number }).port}/`);
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function connect(): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: Number(target.port), ALPNProtocols: ['h2'], ca: [ca.certPem] });
    socket.once('secureConnect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Runs h2Requests over `n` paths, counting the event-loop turns in which it sent requests (unless `quiet`: no onSend). */
async function run(n: number, paced: boolean, quiet = false) {
  seen.most = 0;
  seen.paths = [];
  const queue = Array.from({ length: n }, (_, i) => `/img/${i}.png`);
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const turns = new Set<number>();
  try {
    await h2Requests(await connect(), target, queue, quiet ? { paced } : { paced, onSend: () => turns.add(turn) });
  } finally {
    ticking = false;
  }
  return { queue, turns: turns.size };
}

describe('h2Requests', () => {
  it('by default sends 100 at once, and the next ones when those have ended', async () => {
    const { queue, turns } = await run(150, false);
    expect(queue).toEqual([]);
    expect(seen.paths.sort()).toEqual(Array.from({ length: 150 }, (_, i) => `/img/${i}.png`).sort());
    expect(seen.most).toBe(BROWSER_H2_STREAMS);
    // Two bursts, each sent in one turn.
    expect(turns).toBe(2);
  });

  it('paced: one request per event-loop turn, never more than 100 open, every path asked for once', async () => {
    const { queue, turns } = await run(150, true);
    expect(queue).toEqual([]);
    expect(seen.paths.sort()).toEqual(Array.from({ length: 150 }, (_, i) => `/img/${i}.png`).sort());
    expect(seen.most).toBe(BROWSER_H2_STREAMS);
    expect(turns).toBe(150);
  });

  it('paced without an onSend listener keeps the same bound (the server sees at most 100 open)', async () => {
    const { queue } = await run(150, true, true);
    expect(queue).toEqual([]);
    expect(seen.paths).toHaveLength(150);
    expect(seen.most).toBe(BROWSER_H2_STREAMS);
  });
});
