/**
 * Runs one HTTP/2 case: raw frames inside an intercepted CONNECT (ALPN h2) to the
 * proxy with a strict HTTP/1.1 origin behind it, and the same frames to Node's own
 * HTTP/2 server (cleartext, same nghttp2 checks). Per stream: what the origin got
 * and what the client was answered.
 */
import http2 from 'node:http2';
import net from 'node:net';
import type { H2Case } from './h2-cases.js';
import { openClient } from './raw-client.js';
import { rawH2Exchange, type H2Outcome, type H2Stream, type H2StreamResult } from './raw-h2.js';
import { rawOrigin, type OriginRequest } from './raw-origin.js';
import type { CaseResult, RunContext } from './smuggling-run.js';

interface Seen {
  method: string;
  path: string;
  bodyLength: number;
}

function answerText(r: H2StreamResult | undefined, seen: Seen[]): string {
  if (r?.status === 200 && seen.length === 1) return `${seen[0]!.method} ${seen[0]!.path.slice(0, 40)} ${seen[0]!.bodyLength}B`;
  if (r?.status !== undefined) return String(r.status || 'answered');
  if (r?.rst !== undefined) return `RST ${r.rst}`;
  return 'none';
}

function withStreamIds(streams: H2Stream[]): H2Stream[] {
  return streams.map((s, i) => ({ ...s, headers: [...s.headers, ['x-stream', String(1 + 2 * i)]] }));
}

export interface H2Reference {
  port: number;
  /** Requests Node's handler completed, by client port then stream id. */
  seen: Map<number, Map<string, Seen[]>>;
  close(): Promise<void>;
}

export async function h2Reference(): Promise<H2Reference> {
  const seen = new Map<number, Map<string, Seen[]>>();
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    const port = stream.session?.socket?.remotePort ?? 0;
    let n = 0;
    stream.on('data', (c: Buffer) => (n += c.length));
    stream.on('error', () => {});
    stream.on('end', () => {
      const byStream = seen.get(port) ?? new Map<string, Seen[]>();
      seen.set(port, byStream);
      const id = String(headers['x-stream'] ?? '?');
      byStream.set(id, [
        ...(byStream.get(id) ?? []),
        { method: String(headers[':method']), path: String(headers[':path']), bodyLength: n },
      ]);
      if (!stream.destroyed) stream.respond({ ':status': 200 }, { endStream: true });
    });
  });
  server.on('sessionError', () => {});
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    seen,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export async function runH2Case(ctx: RunContext, ref: H2Reference, c: H2Case): Promise<CaseResult> {
  const origin = await rawOrigin({ tls: ctx.originTls });
  try {
    const authority = `127.0.0.1:${origin.port}`;
    const streams = withStreamIds(c.streams(authority));
    const desyncs: string[] = [];
    const proxySide = (async () => {
      const socket = await openClient(
        { port: ctx.proxy.port, tunnel: { host: '127.0.0.1', port: origin.port, ca: ctx.proxy.ca.certPem } },
        10_000,
        ['h2'],
      );
      return rawH2Exchange(socket, streams);
    })();
    const nodeSide = (async () => {
      const socket = net.connect({ port: ref.port, host: '127.0.0.1' });
      await new Promise((r) => socket.once('connect', r));
      const localPort = socket.localPort!;
      const out = await rawH2Exchange(socket, streams);
      const seen = ref.seen.get(localPort) ?? new Map<string, Seen[]>();
      ref.seen.delete(localPort);
      return { out, seen };
    })();
    let proxyOut: H2Outcome | undefined;
    try {
      proxyOut = await proxySide;
    } catch (err) {
      desyncs.push(`could not open the HTTP/2 client connection: ${(err as Error).message}`);
    }
    const node = await nodeSide;
    const byStream = (reqs: OriginRequest[], id: number) =>
      reqs.filter((q) => q.headers.some(([k, v]) => k.toLowerCase() === 'x-stream' && v === String(id)));
    const proxyText: string[] = [];
    const nodeText: string[] = [];
    streams.forEach((_, i) => {
      const id = 1 + 2 * i;
      const got = byStream(origin.requests, id);
      const answer = proxyOut?.streams.find((s) => s.id === id);
      const nodeSeen = node.seen.get(String(id)) ?? [];
      proxyText.push(
        `s${id}: ${answerText(
          answer,
          got.map((q) => ({ method: q.method, path: q.target, bodyLength: q.bodyLength })),
        )}`,
      );
      nodeText.push(
        `s${id}: ${answerText(
          node.out.streams.find((s) => s.id === id),
          nodeSeen,
        )}`,
      );
      if (got.length > 1) desyncs.push(`stream ${id}: the origin received ${got.length} requests`);
      const q = got[0];
      if (q && answer?.status !== 200) {
        const framing = JSON.stringify(q.headers.filter(([k]) => /length|encoding/i.test(k)));
        const what = `${q.method} ${q.target.slice(0, 60)} (${q.bodyLength} B, ${framing})`;
        desyncs.push(`stream ${id}: the origin received ${what} but the client got ${answerText(answer, [])}`);
      }
      const n = nodeSeen[0];
      if (got.length === 1 && n && q!.bodyLength !== n.bodyLength) {
        desyncs.push(`stream ${id}: origin got ${q!.bodyLength} B of body where Node read ${n.bodyLength} B`);
      }
      const smuggled = (s: string) => /smuggled/.test(s);
      if (got.some((r) => smuggled(r.target)) && !nodeSeen.some((s) => smuggled(s.path)))
        desyncs.push(`stream ${id}: origin saw a smuggled target`);
    });
    const strays = origin.requests.filter((q) => !q.headers.some(([k]) => k.toLowerCase() === 'x-stream'));
    for (const q of strays) desyncs.push(`origin received ${q.method} ${q.target.slice(0, 60)} that no stream sent`);
    for (const e of origin.parseErrors)
      desyncs.push(`origin could not parse what the proxy sent (${e.reason}): ${JSON.stringify(e.bytes.slice(0, 300))}`);
    if (proxyOut?.hung) desyncs.push('HTTP/2 connection still open 5 s after the client sent GOAWAY and FIN');
    return {
      name: c.name,
      group: 'h2',
      path: 'h2',
      proxy: proxyText.join(' | '),
      node: nodeText.join(' | '),
      desyncs,
      hung: !!proxyOut?.hung,
    };
  } finally {
    await origin.close();
  }
}
