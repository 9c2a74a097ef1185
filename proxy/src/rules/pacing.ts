/**
 * Bandwidth limits and slow bodies. A Bucket models one direction of one client connection:
 * each slice of bytes is released when the link would have finished sending it
 * (serialisation time = bytes / rate), so HTTP/2 streams of one connection share its bandwidth
 * like on a real link, and the total time of a body is bytes / rate however the origin chunks it.
 */
import { performance } from 'node:perf_hooks';
import { Transform, pipeline, type Readable } from 'node:stream';

/** Slices small enough for a smooth rate at slow speeds, large enough to be cheap at fast ones. */
const SLICE = 16 * 1024;

export class Bucket {
  private next = 0;
  constructor(readonly bytesPerSecond: number) {}
  /** Milliseconds until `n` bytes may go out. */
  reserve(n: number): number {
    const now = performance.now();
    const start = Math.max(now, this.next);
    this.next = start + (n * 1000) / this.bytesPerSecond;
    return this.next - now;
  }
}

interface Shared {
  bucket: Bucket;
  users: number;
}
const shared = new Map<string, Shared>();

/** The bucket of one connection and direction, shared while streams use it. */
function acquire(key: string, bps: number): { bucket: Bucket; release(): void } {
  let s = shared.get(key);
  if (!s || s.bucket.bytesPerSecond !== bps) {
    s = { bucket: new Bucket(bps), users: 0 };
    shared.set(key, s);
  }
  s.users++;
  const entry = s;
  return {
    bucket: entry.bucket,
    release: () => {
      if (--entry.users === 0 && shared.get(key) === entry) shared.delete(key);
    },
  };
}

/** Buckets held by streams now (0 once every throttled body has ended or its client left: nothing kept per connection). */
export function bucketsInUse(): number {
  return shared.size;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A transform that releases bytes at the pace `waitFor(n)` says (ms to wait before n bytes). */
function paced(slice: number, waitFor: (n: number) => number, limit?: { bytes: number; onCut: () => void }): Transform {
  let sent = 0;
  let cut = false;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      void (async () => {
        for (let i = 0; i < chunk.length && !cut; i += slice) {
          let piece = chunk.subarray(i, i + slice);
          if (limit && sent + piece.length >= limit.bytes) {
            piece = piece.subarray(0, limit.bytes - sent);
            cut = true;
          }
          const wait = waitFor(piece.length);
          if (wait > 1) await sleep(wait);
          if (this.destroyed) return;
          if (piece.length) this.push(piece);
          sent += piece.length;
        }
        if (cut) {
          limit!.onCut();
          return;
        }
        cb();
      })();
    },
  });
}

function through(src: Readable, t: Transform): Readable {
  pipeline(src, t, () => {});
  return t;
}

/** `src` limited to `bytesPerSecond`, sharing the bucket of `key` (connection + direction). */
export function throttled(src: Readable, key: string, bytesPerSecond: number): Readable {
  const { bucket, release } = acquire(key, bytesPerSecond);
  const t = paced(SLICE, (n) => bucket.reserve(n));
  t.once('close', release);
  return through(src, t);
}

/** `src` sent `bytes` at a time every `intervalMs`. */
export function trickled(src: Readable, bytes: number, intervalMs: number): Readable {
  return through(
    src,
    paced(Math.max(1, bytes), () => intervalMs),
  );
}

/** The first `bytes` of `src`, then an error (the client's connection is cut, like a dropped link). */
export function truncated(src: Readable, bytes: number, error: () => Error): Readable {
  const t = paced(Number.MAX_SAFE_INTEGER, () => 0, {
    bytes,
    // Let the bytes pushed so far reach the client before the cut.
    onCut: () =>
      setTimeout(() => {
        t.destroy(error());
        src.destroy();
      }, 50),
  });
  if (bytes === 0) setImmediate(() => t.destroy(error()));
  return through(src, t);
}
