/**
 * Replay test helpers: a small "page" origin whose answers can change between
 * recording and replay, recording through the real proxy into a real HAR file
 * (HarRecorder → journal → exportJournal), and curl through a proxy.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import type http from 'node:http';
import type http2 from 'node:http2';
import { HarRecorder } from '../../src/har/recorder.js';
import { exportJournal } from '../../src/har/journal.js';
import { curl, loadOrCreateCA, type CurlResult } from '../proxy/harness.js';
import { startProxy, type ProxyHandle } from '../../src/server/proxy-server.js';

export type Req = http.IncomingMessage | http2.Http2ServerRequest;
export type Res = http.ServerResponse | http2.Http2ServerResponse;

/** What the page origin serves; tests mutate it to simulate a changed origin. */
export interface PageState {
  counter: number;
  bodies: Record<string, string>;
  status: Record<string, number>;
}

export const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

export function pageHandler(state: PageState) {
  return (req: Req, res: Res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const p = url.pathname;
      res.setHeader('Date', 'Mon, 01 Jan 2024 00:00:00 GMT');
      if (p === '/') {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end('<!doctype html><title>t</title><script src="/app.js"></script><img src="/img.png">');
      } else if (p === '/app.js') {
        // gzip on the wire: the HAR holds it decoded, replay must not claim gzip.
        res.setHeader('Content-Type', 'application/javascript');
        res.setHeader('Content-Encoding', 'gzip');
        res.end(zlib.gzipSync(Buffer.from('document.title = "replayed ok";\n'.repeat(20))));
      } else if (p === '/img.png') {
        res.setHeader('Content-Type', 'image/png');
        res.end(PNG);
      } else if (p === '/counter') {
        res.setHeader('Content-Type', 'text/plain');
        res.end(`count ${++state.counter}`);
      } else if (p === '/api') {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ got: Buffer.concat(chunks).toString(), query: url.search }));
      } else {
        res.statusCode = state.status[p] ?? 200;
        res.setHeader('Content-Type', 'text/plain');
        res.end(state.bodies[p] ?? `body of ${p}`);
      }
    });
  };
}

/** Runs `load` against a fresh proxy and writes what it recorded to `harFile`. */
export async function recordHar(
  dataDir: string,
  harFile: string,
  expected: number,
  load: (proxy: ProxyHandle) => Promise<void>,
): Promise<number> {
  const proxy = await startProxy({ port: 0, dataDir });
  const journal = `${harFile}.journal`;
  const recorder = new HarRecorder(proxy.events, { journalFile: journal, name: 'replay test' });
  try {
    await load(proxy);
    // Exchanges finish after the client got the last byte: wait until the recorder has them all (bounded).
    const until = Date.now() + 5000;
    while (recorder.stats.entries < expected && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  } finally {
    recorder.stop();
    await proxy.stop();
  }
  const written = await exportJournal(journal, harFile);
  fs.rmSync(journal, { force: true });
  return written.entries;
}

/** curl through `proxyUrl`, trusting the Netlens CA of `dataDir`; `-D -` prints the head before the body. */
export function curlVia(proxyUrl: string, dataDir: string, url: string, extra: string[] = []): Promise<CurlResult> {
  return curl(['-x', proxyUrl, '--cacert', loadOrCreateCA(dataDir).certPath, '-D', '-', ...extra, url]);
}

/** Splits curl -D - output into the last head (status + lower-cased headers) and the body. */
export function parseCurl(out: string): { status: number; headers: Map<string, string>; body: string } {
  let rest = out;
  let head = '';
  // 1xx/CONNECT heads come first; the response's own head is the last one before the body.
  while (/^HTTP\/[\d.]+ \d{3}/.test(rest)) {
    const end = rest.indexOf('\r\n\r\n');
    head = rest.slice(0, end);
    rest = rest.slice(end + 4);
  }
  const lines = head.split('\r\n');
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(lines[0])?.[1] ?? 0);
  const headers = new Map<string, string>();
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    if (i > 0) headers.set(l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim());
  }
  return { status, headers, body: rest };
}
