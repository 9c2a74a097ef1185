/**
 * Node's own decision on the same bytes: an http.createServer with the proxy
 * listener's options (maxHeaderSize) that answers every request `200` with
 * `X-Node-Req: <n>` after reading its body, and Node's default clientError handling.
 */
import http from 'node:http';
import net from 'node:net';
import { rawExchange, type RawOptions } from './raw-client.js';
import { header, parseResponses } from './wire.js';
import type { Answer } from './decision.js';

export interface NodeReference {
  decide(chunks: Buffer[], opts?: RawOptions): Promise<{ answers: Answer[]; hung: boolean }>;
  close(): Promise<void>;
}

export async function nodeReference(opts: { maxHeaderSize: number }): Promise<NodeReference> {
  const seen = new Map<number, { method: string; path: string; bodyLength: number }[]>();
  const server = http.createServer({ maxHeaderSize: opts.maxHeaderSize }, (req, res) => {
    const key = req.socket.remotePort ?? 0;
    let n = 0;
    req.on('data', (c: Buffer) => (n += c.length));
    req.on('end', () => {
      const list = seen.get(key) ?? [];
      seen.set(key, list);
      list.push({ method: req.method ?? '', path: (req.url ?? '').replace(/^[a-z]+:\/\/[^/]*/i, '') || '/', bodyLength: n });
      res.writeHead(200, { 'X-Node-Req': String(list.length - 1), 'Content-Length': '0' });
      res.end();
    });
    req.on('error', () => {});
  });
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    async decide(chunks, rawOpts) {
      const out = await rawExchange({ port }, chunks, rawOpts);
      const records = seen.get(out.localPort ?? -1) ?? [];
      seen.delete(out.localPort ?? -1);
      const { responses, garbage } = parseResponses(out.bytes, true);
      const answers: Answer[] = responses.map((r) => {
        const i = header(r.headers, 'x-node-req');
        const rec = i === undefined ? undefined : records[Number(i)];
        return rec ? { kind: 'request', ...rec } : { kind: 'status', status: r.status };
      });
      if (garbage) answers.push({ kind: 'garbage' });
      return { answers, hung: out.hung };
    },
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
