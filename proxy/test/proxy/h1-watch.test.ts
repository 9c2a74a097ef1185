/**
 * h1-watch.ts drops interim (1xx, not 101) response heads before undici's parser:
 * whatever the chunking, undici must read exactly the final response, and nothing is
 * dropped from a response that does not start with an interim head.
 */
import type net from 'node:net';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { watchResponses } from '../../src/upstream/h1-watch.js';

const RUNS = Number(process.env.NETLENS_FUZZ_RUNS ?? 300);

/** Feeds `chunks` to a watched stream one at a time, reading as undici does (read() until null), and returns what was read. */
function feed(chunks: Buffer[]): { out: string; received: number; dropped: number; status?: number } {
  const socket = new PassThrough() as unknown as net.Socket;
  const watch = watchResponses(socket);
  watch.expectResponse();
  let out = '';
  for (const c of chunks) {
    socket.write(c);
    for (let r = socket.read() as Buffer | null; r !== null; r = socket.read() as Buffer | null) out += r.toString('latin1');
  }
  return { out, received: watch.received, dropped: watch.droppedInterim, status: watch.firstStatus };
}

/** Splits `text` at the given cut points (sorted, deduplicated). */
function split(text: string, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let last = 0;
  for (const p of [...points, text.length]) {
    if (p > last) out.push(Buffer.from(text.slice(last, p), 'latin1'));
    last = p;
  }
  return out;
}

const FINAL = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
const interim = fc.constantFrom(
  'HTTP/1.1 100 Continue\r\n\r\n',
  'HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n',
  'HTTP/1.0 102 Processing\r\n\r\n',
  'HTTP/1.1 100\r\n\r\n',
);

describe('h1-watch: interim heads', () => {
  it('drops any run of interim heads, however the bytes are chunked; undici reads exactly the final response', () => {
    fc.assert(
      fc.property(fc.array(interim, { maxLength: 5 }), fc.array(fc.nat(400), { maxLength: 12 }), (heads, cuts) => {
        const text = heads.join('') + FINAL;
        const r = feed(split(text, cuts));
        expect(r.out).toBe(FINAL);
        expect(r.dropped).toBe(heads.length);
        expect(r.received).toBe(text.length);
        expect(r.status).toBe(200);
      }),
      { seed: 42, numRuns: RUNS },
    );
  });

  it('passes a response that does not start with an interim head through unchanged (101, 200, not HTTP, empty reads)', () => {
    const inputs = [
      'HTTP/1.1 101 Switching Protocols\r\n\r\n',
      FINAL,
      'HTTP/1.1 1',
      'SSH-2.0-OpenSSH\r\n',
      'HTTP/1.1 10x Odd\r\n\r\n',
      'H',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...inputs), fc.array(fc.nat(80), { maxLength: 6 }), (text, cuts) => {
        const r = feed(split(text, cuts));
        // A bare prefix of an interim status line ("HTTP/1.1 1", "H") is held until it can be judged.
        if (text === 'HTTP/1.1 1' || text === 'H') expect(r.out).toBe('');
        else expect(r.out).toBe(text);
        expect(r.received).toBe(text.length);
      }),
      { seed: 42, numRuns: RUNS },
    );
  });

  it('stops stripping at the final response: a body that looks like a 100 head is delivered', () => {
    const text = 'HTTP/1.1 200 OK\r\nContent-Length: 25\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n';
    expect(feed(split(text, [5, 40, 50])).out).toBe(text);
  });
});

describe('h1-watch: status line', () => {
  it("records the final head's HTTP version (the fallback when undici's parser cannot be read)", () => {
    const socket = new PassThrough() as unknown as net.Socket;
    const watch = watchResponses(socket);
    watch.expectResponse();
    socket.write(Buffer.from('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n', 'latin1'));
    while (socket.read() !== null);
    expect(watch.firstStatus).toBe(200);
    expect(watch.firstVersion).toBe('1.0');
    watch.expectResponse();
    expect(watch.firstVersion).toBeUndefined();
  });
});
