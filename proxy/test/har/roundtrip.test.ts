/**
 * Round trip with real traffic: requests through the real proxy (plain HTTP,
 * intercepted HTTPS over HTTP/1.1 and HTTP/2) are recorded into a session,
 * exported, checked against the HAR 1.2 schema, imported, exported again, and
 * the entries compared.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type ProxyHandle } from '../../src/server/proxy-server.js';
import { loadOrCreateCA } from '../../src/tls/ca.js';
import { readHarFile } from '../../src/har/reader.js';
import { schemaProblems } from '../../src/har/schema.js';
import { timeOf } from '../../src/har/entry.js';
import type { HarEntry } from '../../src/har/types.js';
import { SessionStore } from '../../src/sessions/store.js';

const TEXT = 'Netlens round trip. '.repeat(300);
const BINARY = crypto.randomBytes(3000);
const BIG = Buffer.alloc(200_000, 'z');
const LIMIT = 64 * 1024;

function origin(req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const url = req.url ?? '/';
    const r = res as http.ServerResponse;
    if (url.startsWith('/gzip')) {
      r.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Encoding': 'gzip' });
      r.end(zlib.gzipSync(TEXT));
    } else if (url.startsWith('/br')) {
      r.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'br' });
      r.end(zlib.brotliCompressSync(JSON.stringify({ text: TEXT })));
    } else if (url.startsWith('/bin')) {
      r.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      r.end(BINARY);
    } else if (url.startsWith('/big')) {
      r.writeHead(200, { 'Content-Type': 'text/plain' });
      r.end(BIG);
    } else if (url.startsWith('/form')) {
      r.writeHead(200, { 'Content-Type': 'text/plain', 'Set-Cookie': 'seen=1; Path=/; HttpOnly' });
      r.end(Buffer.concat(chunks));
    } else {
      r.writeHead(404, { 'Content-Type': 'text/plain' });
      r.end('no');
    }
  });
}

async function collect(res: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

let dataDir: string;
let proxy: ProxyHandle | undefined;
let skipReason = '';
let plainOrigin: http.Server;
let tlsOrigin: http2.Http2SecureServer;
let plainPort = 0;
let tlsPort = 0;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-roundtrip-'));
  const ca = loadOrCreateCA(dataDir);
  plainOrigin = http.createServer(origin).listen(0, '127.0.0.1');
  const { certPem, keyPem } = ca.issue(['127.0.0.1']);
  tlsOrigin = http2.createSecureServer({ cert: certPem, key: keyPem, allowHTTP1: true }, origin).listen(0, '127.0.0.1');
  await Promise.all([new Promise((r) => plainOrigin.once('listening', r)), new Promise((r) => tlsOrigin.once('listening', r))]);
  plainPort = (plainOrigin.address() as net.AddressInfo).port;
  tlsPort = (tlsOrigin.address() as net.AddressInfo).port;
  try {
    proxy = await startProxy({ port: 0, dataDir, bodyCaptureLimit: LIMIT });
  } catch (err) {
    skipReason = `the proxy core is not available yet: ${(err as Error).message}`;
    console.warn(`SKIPPED round trip: ${skipReason}`);
  }
});

afterAll(async () => {
  await proxy?.stop();
  plainOrigin?.close();
  tlsOrigin?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function plainRequest(pathAndQuery: string, init: { method?: string; headers?: [string, string][]; body?: string } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // An object keeps insertion order and Node writes names in the case given.
    const headers = Object.fromEntries(init.headers ?? []);
    const req = http.request({
      host: '127.0.0.1',
      port: proxy!.address.port,
      method: init.method ?? 'GET',
      path: `http://127.0.0.1:${plainPort}${pathAndQuery}`,
      headers,
    });
    req.on('response', (res) => collect(res).then(resolve, reject));
    req.on('error', reject);
    req.end(init.body);
  });
}

function tunnel(alpn: string): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: proxy!.address.port, method: 'CONNECT', path: `127.0.0.1:${tlsPort}` });
    req.on('connect', (res, socket) => {
      if (res.statusCode !== 200) return reject(new Error(`CONNECT answered ${res.statusCode}`));
      const t = tls.connect({ socket, host: '127.0.0.1', ca: proxy!.ca.certPem, ALPNProtocols: [alpn] });
      t.once('secureConnect', () => resolve(t));
      t.once('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function httpsH1(pathAndQuery: string): Promise<Buffer> {
  const socket = await tunnel('http/1.1');
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: tlsPort, path: pathAndQuery, createConnection: () => socket });
    req.on('response', (res) => collect(res).then(resolve, reject));
    req.on('error', reject);
    req.end();
  });
}

async function httpsH2(paths: string[]): Promise<Buffer[]> {
  const socket = await tunnel('h2');
  const session = http2.connect(`https://127.0.0.1:${tlsPort}`, { createConnection: () => socket });
  try {
    return await Promise.all(
      paths.map(
        (p) =>
          new Promise<Buffer>((resolve, reject) => {
            const stream = session.request({ ':path': p, 'x-first': '1', 'X-Second': '2' });
            collect(stream).then(resolve, reject);
            stream.end();
          }),
      ),
    );
  } finally {
    session.close();
  }
}

const decoded = (e: HarEntry) =>
  e.response.content.encoding === 'base64'
    ? Buffer.from(e.response.content.text ?? '', 'base64')
    : Buffer.from(e.response.content.text ?? '');
const byUrl = (entries: HarEntry[], part: string) => {
  const found = entries.filter((e) => e.request.url.includes(part));
  expect(found.length, `entries for ${part}`).toBeGreaterThan(0);
  return found;
};

/** Bounds a network step so a broken proxy fails the test quickly and says where. */
function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Records what `traffic` sends into a session, exports it, checks the export
 * against the schema, imports it, exports again and compares the entries.
 * Returns the entries of the first export.
 */
async function roundTrip(name: string, expected: number, traffic: () => Promise<void>): Promise<HarEntry[]> {
  const store = new SessionStore(dataDir);
  const rec = await store.startRecording(proxy!.events, { name });
  try {
    await traffic();
    // Exchanges finish just after the client has its response: wait (bounded) until all are journaled.
    for (let i = 0; i < 100 && rec.recorder.stats.entries < expected; i++) await new Promise((r) => setTimeout(r, 20));
  } finally {
    await rec.stop();
  }
  const info = await store.get(rec.id);
  expect(info.entryCount).toBe(expected);

  const first = path.join(dataDir, `${name}-1.har`);
  await store.exportTo(info.id, first);
  const read = await readHarFile(first);
  expect(read.errors).toEqual([]);
  expect(read.warnings).toEqual([]);
  expect(schemaProblems(JSON.parse(fs.readFileSync(first, 'utf8')))).toEqual([]);
  for (const e of read.har!.log.entries) expect(e.time, e.request.url).toBe(timeOf(e.timings));

  const { info: imported, warnings } = await store.importFile(first);
  expect(warnings).toEqual([]);
  const second = path.join(dataDir, `${name}-2.har`);
  await store.exportTo(imported.id, second);
  expect(JSON.parse(fs.readFileSync(second, 'utf8')).log.entries).toEqual(JSON.parse(fs.readFileSync(first, 'utf8')).log.entries);
  return read.har!.log.entries;
}

describe('HAR round trip through the real proxy', () => {
  it('plain HTTP: record → export → schema → import → export gives identical entries', async (ctx) => {
    if (skipReason) ctx.skip();
    let gzRaw: Buffer = Buffer.alloc(0);
    const entries = await roundTrip('plain', 5, async () => {
      // The proxy passes bodies through as sent: the client gets them compressed.
      gzRaw = await within(
        5000,
        'GET /gzip',
        plainRequest('/gzip?a=1&b=two', {
          headers: [
            ['X-Zeta', 'z'],
            ['x-alpha', 'a'],
            ['Cookie', 'k=v'],
          ],
        }),
      );
      expect(zlib.gunzipSync(gzRaw).toString() === TEXT).toBe(true);
      expect(JSON.parse(zlib.brotliDecompressSync(await within(5000, 'GET /br', plainRequest('/br'))).toString()).text === TEXT).toBe(true);
      expect((await within(5000, 'GET /bin', plainRequest('/bin'))).equals(BINARY)).toBe(true);
      expect((await within(5000, 'GET /big', plainRequest('/big'))).length).toBe(BIG.length);
      await within(
        5000,
        'POST /form',
        plainRequest('/form', {
          method: 'POST',
          headers: [['Content-Type', 'application/x-www-form-urlencoded']],
          body: 'name=net+lens&x=1',
        }),
      );
    });
    const [gz] = byUrl(entries, '/gzip?a=1');
    expect(gz.response.content.text === TEXT).toBe(true);
    expect(gz.response.bodySize).toBe(gzRaw.length);
    expect(gz.response.content.size).toBe(TEXT.length);
    expect(gz.request.queryString).toEqual([
      { name: 'a', value: '1' },
      { name: 'b', value: 'two' },
    ]);
    expect(gz.request.headers.map((h) => h.name).filter((n) => /zeta|alpha/i.test(n))).toEqual(['X-Zeta', 'x-alpha']);
    expect(gz.request.cookies).toEqual([{ name: 'k', value: 'v' }]);
    expect(gz).toMatchObject({ _transport: 'plain', _interception: false, serverIPAddress: '127.0.0.1' });
    expect(gz.request.httpVersion).toBe('HTTP/1.1');
    expect(gz.response.headersSize).toBeGreaterThan(0);
    expect(JSON.parse(byUrl(entries, '/br')[0].response.content.text!).text === TEXT).toBe(true);
    const [bin] = byUrl(entries, '/bin');
    expect(bin.response.content.encoding).toBe('base64');
    expect(decoded(bin).equals(BINARY)).toBe(true);
    const [big] = byUrl(entries, '/big');
    expect(big.response.content).toMatchObject({ _truncated: true, _capturedSize: LIMIT });
    expect(big.response.bodySize).toBe(BIG.length);
    const [form] = byUrl(entries, '/form');
    expect(form.request.postData?.params).toEqual([
      { name: 'name', value: 'net lens' },
      { name: 'x', value: '1' },
    ]);
    expect(form.response.cookies[0]).toMatchObject({ name: 'seen', value: '1', httpOnly: true });
    // Entries are in startedDateTime order.
    const starts = entries.map((e) => Date.parse(e.startedDateTime));
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  });

  it("intercepted HTTPS over HTTP/1.1 and HTTP/2: each leg's protocol and the shared connection are recorded", async (ctx) => {
    if (skipReason) ctx.skip();
    const entries = await roundTrip('tls', 3, async () => {
      expect((await within(5000, 'HTTPS h1 GET /bin', httpsH1('/bin?h1'))).equals(BINARY)).toBe(true);
      const [h2bin, h2gzip] = await within(5000, 'HTTPS h2 GETs', httpsH2(['/bin?h2', '/gzip?h2']));
      expect(h2bin.equals(BINARY)).toBe(true);
      expect(zlib.gunzipSync(h2gzip).toString() === TEXT).toBe(true);
    });
    const [h1] = byUrl(entries, '/bin?h1');
    expect(h1).toMatchObject({ _transport: 'intercepted', _interception: true });
    expect(h1.request.httpVersion).toBe('HTTP/1.1');
    expect(decoded(h1).equals(BINARY)).toBe(true);
    const [h2] = byUrl(entries, '/gzip?h2');
    expect(h2.request.httpVersion).toBe('HTTP/2.0');
    expect(h2._clientProtocol).toBe('h2');
    expect(h2.response.content.text === TEXT).toBe(true);
    expect(h2.connection).toBeTruthy();
    expect(byUrl(entries, '/bin?h2')[0].connection).toBe(h2.connection); // one upstream connection for both streams
  });
});
