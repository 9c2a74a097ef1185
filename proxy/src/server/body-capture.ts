import type { BodyCapture } from '../model.js';

/**
 * Keeps the first `limit` bytes of a body that streams through the proxy, and
 * counts all of it. Forwarding never waits for this: chunks are observed as they
 * pass, so memory per exchange is bounded by the limit whatever the body size.
 */
export class BodyCapturer {
  private chunks: Buffer[] = [];
  private kept = 0;
  size = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer | Uint8Array | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.size += buf.length;
    if (this.kept >= this.limit) return;
    const room = this.limit - this.kept;
    const part = buf.length <= room ? buf : buf.subarray(0, room);
    // Copy: the stream may reuse its buffer after this tick.
    this.chunks.push(Buffer.from(part));
    this.kept += part.length;
  }

  result(): BodyCapture {
    const bytes = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.kept);
    return { size: this.size, bytes, truncated: this.size > this.kept };
  }
}

/** Zero bytes, shared: nothing in it can change, and a typed array per exchange record was a measurable allocation. */
const NO_BYTES = new Uint8Array(0);

export function emptyBody(): BodyCapture {
  return { size: 0, bytes: NO_BYTES, truncated: false };
}
