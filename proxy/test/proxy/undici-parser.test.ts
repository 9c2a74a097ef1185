/**
 * Guards the undici internals proxy/src/upstream/undici-parser.ts reads (undici is pinned):
 * after an upgrade that moves them, the first test fails with a message naming the undici
 * version and what changed. The others check what is read through them on real sockets,
 * and that a socket without the internal degrades to undefined instead of throwing.
 */
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { Client } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { parserErrorName, parserHttpVersion, undiciParserProblem, undiciVersion } from '../../src/upstream/undici-parser.js';

/** An origin that answers every connection with `response` once it has read a request head. */
async function rawOrigin(response: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = net.createServer((socket) => {
    let head = '';
    socket.on('data', (d) => {
      head += d.toString('latin1');
      if (head.includes('\r\n\r\n')) socket.end(response);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

interface Seen {
  problem?: string;
  version?: string;
  errorName?: string;
  status?: number;
  error?: Error;
}

/** One GET through an undici Client whose socket the test holds; reads the internals while the head is current. */
async function request(url: string): Promise<Seen> {
  let socket: net.Socket | undefined;
  const seen: Seen = {};
  const client = new Client(url, {
    connect: (opts, callback) => {
      const s = net.connect({ host: opts.hostname, port: Number(opts.port) });
      socket = s;
      // undici destroys the socket with the parse error, then frees its parser on 'close': read it in between.
      s.on('error', () => (seen.errorName ??= parserErrorName(s)));
      s.once('connect', () => callback(null, s));
      s.once('error', (err) => callback(err, null));
      return s;
    },
  });
  cleanups.push(() => client.destroy());
  await new Promise<void>((resolve) => {
    client.dispatch(
      { method: 'GET', path: '/', headers: ['host', 'origin.test'] },
      {
        onConnect: () => {},
        onHeaders: (status) => {
          seen.status = status;
          seen.problem = undiciParserProblem(socket!);
          seen.version = parserHttpVersion(socket);
          return true;
        },
        onData: () => true,
        onComplete: () => resolve(),
        onError: (err) => {
          seen.error = err;
          resolve();
        },
      },
    );
  });
  return seen;
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('undici internals (undici-parser.ts)', () => {
  it(`are where this undici (${undiciVersion()}) keeps them: Symbol(parser) on the socket, llhttp getters, the error table`, async () => {
    const origin = await rawOrigin('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    cleanups.push(origin.close);
    const seen = await request(origin.url);
    expect(seen.error).toBeUndefined();
    expect(seen.status).toBe(200);
    // A failure here names the undici version and the internal that moved: update undici-parser.ts for it.
    expect(seen.problem, seen.problem).toBeUndefined();
    expect(seen.version).toBe('http/1.1');
  });

  it('reads an HTTP/1.0 response as http/1.0', async () => {
    const origin = await rawOrigin('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok');
    cleanups.push(origin.close);
    const seen = await request(origin.url);
    expect(seen.status).toBe(200);
    expect(seen.version).toBe('http/1.0');
  });

  it("names llhttp's error (HPE_*) for a head it refuses", async () => {
    const origin = await rawOrigin('HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok');
    cleanups.push(origin.close);
    const seen = await request(origin.url);
    expect(seen.error).toBeDefined();
    expect(seen.errorName).toBe('HPE_INVALID_STATUS');
  });

  it('degrades to undefined on a socket without the internal (the fallback path), and says what is missing', () => {
    const plain = new PassThrough() as unknown as net.Socket;
    expect(parserHttpVersion(plain)).toBeUndefined();
    expect(parserHttpVersion(undefined)).toBeUndefined();
    expect(parserErrorName(plain)).toBeUndefined();
    const socket = new net.Socket();
    expect(undiciParserProblem(socket)).toMatch(
      new RegExp(`^undici ${undiciVersion().replace(/\./g, '\\.')} changed .*Symbol\\(parser\\)`),
    );
    socket.destroy();
  });
});
