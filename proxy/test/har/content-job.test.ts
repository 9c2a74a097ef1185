/**
 * Large and compressed bodies are made into JSON off the event loop's critical path (har/content-job.ts): the same
 * bytes as the HAR entry's content and postData made at once, and the recorder writes each such line once, whether
 * the job finishes or a flush, a stop or an exit comes first.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bodiesJson, JOB_MIN_BYTES, needsBodyJob, SLICE_BYTES } from '../../src/har/content-job.js';
import { decodeContent, decodeContentAsync, MAX_DECODED_BODY } from '../../src/har/body.js';
import { harContent, harPostData } from '../../src/har/entry.js';
import { exchangeLine, exchangeLinePieces, writeExchangeLine } from '../../src/har/exchange-line.js';
import { JsonBytes } from '../../src/har/json-bytes.js';
import { HarRecorder, MAX_QUEUED_BYTES, MAX_QUEUED_JOBS, WRITE_SLICE } from '../../src/har/recorder.js';
import { EventStream } from '../../src/events.js';
import type { RawHeaders } from '../../src/model.js';
import { body, makeExchange } from './make-exchange.js';

// 30 bytes a unit, "é" at bytes 22 and 23.
const text = (n: number, unit = 'let a = "b\\\\c";\tconst é = 1;\n') => Buffer.from(unit.repeat(Math.ceil(n / unit.length))).subarray(0, n);
// Cut inside "é" (two bytes in UTF-8) and not: a truncated body decodes up to its last whole character.
const big = text(3 * SLICE_BYTES + 11);
const gzip = (b: Buffer) => zlib.gzipSync(b);
const br = (b: Buffer) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });

/** Bodies × headers, each with what makes it take a job; `limit` cuts the captured bytes as the capture limit does. */
const CASES: { name: string; bytes: Buffer; headers: RawHeaders; limit?: number }[] = [
  { name: 'large text', bytes: big, headers: [['Content-Type', 'application/javascript']] },
  { name: 'large text cut mid-character', bytes: big, headers: [['Content-Type', 'text/plain']], limit: SLICE_BYTES + 19 },
  { name: 'large binary', bytes: crypto.randomBytes(2 * SLICE_BYTES + 1), headers: [['Content-Type', 'image/png']] },
  { name: 'large, no type, text', bytes: big, headers: [] },
  { name: 'large, no type, NUL early', bytes: Buffer.concat([Buffer.from([0]), big]), headers: [] },
  {
    name: 'large text with a control character past the first slice',
    bytes: Buffer.concat([big.subarray(0, SLICE_BYTES + 5), Buffer.from([1]), big.subarray(0, 100)]),
    headers: [['Content-Type', 'text/plain']],
  },
  { name: 'large text, not UTF-8', bytes: Buffer.concat([big, Buffer.from([0xff, 0xfe])]), headers: [['Content-Type', 'text/css']] },
  {
    name: 'small gzip',
    bytes: gzip(Buffer.from('{"a":1}')),
    headers: [
      ['Content-Type', 'application/json'],
      ['Content-Encoding', 'gzip'],
    ],
  },
  {
    name: 'gzip to large text',
    bytes: gzip(big),
    headers: [
      ['Content-Type', 'text/html'],
      ['Content-Encoding', 'gzip'],
    ],
  },
  {
    name: 'brotli to large text',
    bytes: br(big),
    headers: [
      ['content-type', 'text/html'],
      ['content-encoding', 'br'],
    ],
  },
  {
    name: 'gzip cut by the capture limit',
    bytes: gzip(crypto.randomBytes(300_000)),
    headers: [['Content-Encoding', 'gzip']],
    limit: 100_000,
  },
  {
    name: 'deflate, raw',
    bytes: zlib.deflateRawSync(big),
    headers: [
      ['Content-Type', 'text/plain'],
      ['Content-Encoding', 'deflate'],
    ],
  },
  {
    name: 'gzip then brotli',
    bytes: br(gzip(big)),
    headers: [
      ['Content-Type', 'text/plain'],
      ['Content-Encoding', 'gzip, br'],
    ],
  },
  {
    name: 'not gzip at all',
    bytes: Buffer.from('plain text, said to be gzip'),
    headers: [
      ['Content-Type', 'text/plain'],
      ['Content-Encoding', 'gzip'],
    ],
  },
  {
    name: 'unknown coding',
    bytes: Buffer.from('zzz'),
    headers: [
      ['Content-Type', 'text/plain'],
      ['Content-Encoding', 'compress'],
    ],
  },
  {
    name: 'gzip of nothing',
    bytes: gzip(Buffer.alloc(0)),
    headers: [
      ['Content-Type', 'text/plain'],
      ['Content-Encoding', 'gzip'],
    ],
  },
];

describe('content-job: bodies made into JSON over several turns', () => {
  for (const c of CASES) {
    it(`${c.name}: the content's and the postData's JSON as made at once`, async () => {
      const x = makeExchange({
        request: {
          method: 'POST',
          url: 'https://example.test/up',
          httpVersion: 'http/1.1',
          headers: c.headers,
          body: body(c.bytes, c.limit),
        },
        resHeaders: c.headers,
        resBody: body(c.bytes, c.limit),
      });
      expect(needsBodyJob(x)).toBe(true);
      const made = await bodiesJson(x);
      expect(Buffer.from(made.content!).toString()).toBe(JSON.stringify(harContent(x)));
      expect(Buffer.from(made.postData!).toString()).toBe(JSON.stringify(harPostData(x.request)));
      // And the line with them is the line made at once.
      const o = new JsonBytes();
      writeExchangeLine(o, x, 'page_1', made);
      expect(o.bytes().toString()).toBe(exchangeLine(x, 'page_1'));
    });
  }

  it('decodes on the thread pool as decodeContent does at once: every coding, at and around the output bound, bombs', async () => {
    const plain = text(100_000);
    const bodies: [string, Buffer][] = [
      ['gzip', gzip(plain)],
      ['x-gzip', gzip(plain)],
      ['deflate', zlib.deflateSync(plain)],
      ['deflate', zlib.deflateRawSync(plain)],
      ['br', br(plain)],
      ['gzip, br', br(gzip(plain))],
      ['gzip', Buffer.from('not gzip')],
      ['gzip', gzip(plain).subarray(0, 5_000)],
    ];
    for (const [coding, bytes] of bodies) {
      for (const max of [plain.length - 1, plain.length, plain.length + 1, 1000]) {
        for (const truncated of [false, true]) {
          const sync = decodeContent(bytes, coding, truncated, max);
          const pooled = await decodeContentAsync(bytes, coding, truncated, max);
          expect({ ...pooled, bytes: pooled.bytes.toString('base64') }).toEqual({ ...sync, bytes: sync.bytes.toString('base64') });
        }
      }
    }
    // A brotli bomb: 65 MiB of zeros in a few hundred bytes stops at MAX_DECODED_BODY, as at once.
    const bomb = br(Buffer.alloc(MAX_DECODED_BODY + 1024 * 1024));
    const x = makeExchange({ resHeaders: [['Content-Encoding', 'br']], resBody: body(bomb) });
    expect(bomb.length).toBeLessThan(JOB_MIN_BYTES);
    expect(Buffer.from((await bodiesJson(x)).content!).toString()).toBe(JSON.stringify(harContent(x)));
    expect(harContent(x)._decodingError).toMatch(/^br: Cannot create a Buffer larger than/);
  });

  it('gives the line made at once in pieces, also for an exchange of unexpected shape (the generic way)', async () => {
    for (const odd of [false, true]) {
      const x = makeExchange({ resHeaders: [['Content-Type', 'text/plain']], resBody: body(big) });
      if (odd) (x as { nagle: unknown }).nagle = 'yes';
      const pieces = exchangeLinePieces(x, undefined, await bodiesJson(x));
      expect(pieces.length).toBe(odd ? 1 : 3);
      expect(Buffer.concat(pieces).toString()).toBe(exchangeLine(x) + '\n');
    }
  });

  it('leaves small plain bodies, identity-coded ones and forms to the line made at once', () => {
    expect(needsBodyJob(makeExchange({ resBody: body(text(JOB_MIN_BYTES - 1)) }))).toBe(false);
    expect(needsBodyJob(makeExchange({ resHeaders: [['Content-Encoding', ' Identity ']], resBody: body('x') }))).toBe(false);
    expect(needsBodyJob(makeExchange({ resHeaders: [['Content-Encoding', 'gzip']], resBody: body('') }))).toBe(false);
    expect(needsBodyJob(makeExchange({ response: undefined }))).toBe(false);
  });

  it('makes a large form body the way postData does (params parsed) after decoding it', async () => {
    const form = Buffer.from(Array.from({ length: 9000 }, (_, i) => `k${i}=v%20${i}`).join('&'));
    for (const headers of [
      [['Content-Type', 'application/x-www-form-urlencoded']],
      [
        ['Content-Type', 'application/x-www-form-urlencoded'],
        ['Content-Encoding', 'gzip'],
      ],
    ] as RawHeaders[]) {
      const bytes = headers.length > 1 ? gzip(form) : form;
      const r = makeExchange({
        request: { method: 'POST', url: 'https://e.test/', httpVersion: 'http/1.1', headers, body: body(bytes) },
      }).request;
      const x = makeExchange({ request: r });
      const made = await bodiesJson(x);
      expect(made.content).toBeUndefined();
      expect(Buffer.from(made.postData!).toString()).toBe(JSON.stringify(harPostData(r)));
      expect(JSON.parse(Buffer.from(made.postData!).toString()).params).toHaveLength(9000);
    }
  });

  it('lets the event loop turn while a large body is made', async () => {
    const x = makeExchange({
      resHeaders: [
        ['Content-Type', 'text/plain'],
        ['Content-Encoding', 'gzip'],
      ],
      resBody: body(gzip(big)),
    });
    let turns = 0;
    let done = false;
    const made = bodiesJson(x).then((m) => {
      done = true;
      return m;
    });
    while (!done) {
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    await made;
    // One slice per turn after decoding on the thread pool: at least as many turns as slices.
    expect(turns).toBeGreaterThanOrEqual(Math.ceil(big.length / SLICE_BYTES));
  });
});

describe('HarRecorder with body jobs', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-jobs-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const lines = (file: string) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"t":"x"'));
  const heavy = () =>
    makeExchange({
      resHeaders: [
        ['Content-Type', 'text/html'],
        ['Content-Encoding', 'br'],
      ],
      resBody: body(br(big)),
    });

  it("writes a heavy exchange's line after its job, and the light ones meanwhile", async () => {
    const events = new EventStream();
    const rec = new HarRecorder(events, { journalFile: path.join(dir, 'j.jsonl'), flushMaxPending: 1 });
    const h = heavy();
    const light = makeExchange();
    events.emit({ type: 'complete', exchange: h });
    events.emit({ type: 'complete', exchange: light });
    expect(rec.pendingJobs).toBe(1);
    expect(lines(rec.journalFile)).toEqual([exchangeLine(light)]);
    await rec.drain();
    expect(rec.pendingJobs).toBe(0);
    expect(lines(rec.journalFile)).toEqual([exchangeLine(light), exchangeLine(h)]);
    expect(rec.stats).toEqual({ entries: 2, failed: 0 });
    rec.stop();
  });

  it('writes a waiting line at once on flush (a reader) and on stop, once each, and errs on nothing after', async () => {
    const errors: Error[] = [];
    const events = new EventStream();
    const rec = new HarRecorder(events, { journalFile: path.join(dir, 'j.jsonl'), onError: (e) => errors.push(e) });
    const a = heavy();
    const b = heavy();
    events.emit({ type: 'complete', exchange: a });
    rec.flush();
    expect(lines(rec.journalFile)).toEqual([exchangeLine(a)]);
    // Its job finishes later into a recorder still recording: not written again.
    await rec.drain();
    expect(lines(rec.journalFile)).toEqual([exchangeLine(a)]);
    events.emit({ type: 'complete', exchange: b });
    rec.stop();
    expect(lines(rec.journalFile)).toEqual([exchangeLine(a), exchangeLine(b)]);
    // The jobs still running finish into a stopped recorder: nothing more is written, nothing fails.
    await rec.drain();
    expect(lines(rec.journalFile)).toHaveLength(2);
    expect(errors).toEqual([]);
    expect(rec.stats).toEqual({ entries: 2, failed: 0 });
  });

  it('writes a large line a slice per turn, and no other line lands inside it, whether it ends by itself or by a flush', async () => {
    for (const end of ['itself', 'flush'] as const) {
      const events = new EventStream();
      const rec = new HarRecorder(events, { journalFile: path.join(dir, `slices-${end}.jsonl`), flushMaxPending: 1 });
      const empty = fs.statSync(rec.journalFile).size;
      // ~16 MiB of base64: sixteen slices and more.
      const large = makeExchange({ resHeaders: [['Content-Type', 'image/png']], resBody: body(crypto.randomBytes(12 * WRITE_SLICE)) });
      events.emit({ type: 'complete', exchange: large });
      // Turns until the line's first slice is on disk (its JSON made first, on the thread pool and in slices).
      for (let i = 0; i < 2000 && fs.statSync(rec.journalFile).size === empty; i++) await new Promise((resolve) => setImmediate(resolve));
      const sizes = new Set([fs.statSync(rec.journalFile).size]);
      expect(sizes.has(empty)).toBe(false);
      const lights = [];
      for (let i = 0; i < 400 && rec.stats.entries < 1 + lights.length; i++) {
        const light = makeExchange();
        lights.push(light);
        events.emit({ type: 'complete', exchange: light });
        if (end === 'flush') {
          rec.flush();
          break;
        }
        await new Promise((resolve) => setImmediate(resolve));
        sizes.add(fs.statSync(rec.journalFile).size);
      }
      // Cut short by the flush, or a slice per turn.
      if (end === 'itself') expect(sizes.size).toBeGreaterThan(8);
      const written = lines(rec.journalFile);
      expect(written.sort()).toEqual([large, ...lights].map((x) => exchangeLine(x)).sort());
      expect(rec.stats).toEqual({ entries: 1 + lights.length, failed: 0 });
      await rec.drain();
      expect(lines(rec.journalFile)).toHaveLength(1 + lights.length);
      rec.stop();
    }
  });

  it('ends a large line cut by a failed write, so the lines after it are whole', async () => {
    const errors: Error[] = [];
    const events = new EventStream();
    const rec = new HarRecorder(events, {
      journalFile: path.join(dir, 'full-disk.jsonl'),
      flushMaxPending: 1,
      onError: (e) => errors.push(e),
    });
    const write = rec.journal.appendBytes.bind(rec.journal);
    let slices = 0;
    // The disk is full for the large line's second slice only.
    vi.spyOn(rec.journal, 'appendBytes').mockImplementation((bytes, entries) => {
      if (bytes.length === WRITE_SLICE && ++slices === 2) throw new Error('ENOSPC: no space left on device, write');
      write(bytes, entries);
    });
    events.emit({
      type: 'complete',
      exchange: makeExchange({ resHeaders: [['Content-Type', 'image/png']], resBody: body(crypto.randomBytes(3 * WRITE_SLICE)) }),
    });
    await rec.drain();
    const after = makeExchange();
    events.emit({ type: 'complete', exchange: after });
    rec.stop();
    const all = fs.readFileSync(rec.journalFile, 'utf8').split('\n').filter(Boolean);
    expect(all).toHaveLength(3);
    // The cut line is there, ended: one damaged line for a reader.
    expect(all[1].startsWith('{"t":"x"')).toBe(true);
    expect(() => JSON.parse(all[1])).toThrow();
    expect(all[2]).toBe(exchangeLine(after));
    expect(rec.stats).toEqual({ entries: 1, failed: 1 });
    expect(errors.map((e) => e.message)).toEqual(['ENOSPC: no space left on device, write']);
  });

  it(`queues at most MAX_QUEUED_JOBS exchanges; past that a line is made at once`, async () => {
    const events = new EventStream();
    const rec = new HarRecorder(events, { journalFile: path.join(dir, 'j.jsonl'), flushDelayMs: 60_000 });
    // Small gzip bodies: a job each all the same (any content-encoded body takes one).
    const small = () =>
      makeExchange({
        resHeaders: [
          ['Content-Type', 'text/plain'],
          ['Content-Encoding', 'gzip'],
        ],
        resBody: body(gzip(Buffer.from('hello'))),
      });
    const xs = Array.from({ length: MAX_QUEUED_JOBS + 3 }, small);
    for (const x of xs) events.emit({ type: 'complete', exchange: x });
    expect(rec.pendingJobs).toBe(MAX_QUEUED_JOBS);
    await rec.drain();
    expect(rec.pendingJobs).toBe(0);
    expect(lines(rec.journalFile).sort()).toEqual(xs.map((x) => exchangeLine(x)).sort());
    rec.stop();
  });

  it('queues at most MAX_QUEUED_BYTES of captured bodies, but always one exchange', async () => {
    const events = new EventStream();
    const rec = new HarRecorder(events, { journalFile: path.join(dir, 'j.jsonl'), flushDelayMs: 60_000 });
    const third = () =>
      makeExchange({ resHeaders: [['Content-Type', 'text/plain']], resBody: body(Buffer.alloc(MAX_QUEUED_BYTES / 3 + 1, 0x61)) });
    const huge = makeExchange({ resHeaders: [['Content-Type', 'text/plain']], resBody: body(Buffer.alloc(MAX_QUEUED_BYTES + 1, 0x61)) });
    events.emit({ type: 'complete', exchange: huge });
    expect(rec.pendingJobs).toBe(1);
    await rec.drain();
    const xs = [third(), third(), third()];
    for (const x of xs) events.emit({ type: 'complete', exchange: x });
    expect(rec.pendingJobs).toBe(2);
    await rec.drain();
    expect(lines(rec.journalFile).sort()).toEqual([huge, ...xs].map((x) => exchangeLine(x)).sort());
    rec.stop();
  });
});
