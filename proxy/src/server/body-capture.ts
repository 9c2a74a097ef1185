import type { BodyCapture } from '../model.js';

/** Bytes of a chunk's memory beyond the chunk itself that keeping it by reference may hold on to. */
const MAX_PINNED_EXTRA = 2048;

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
    // Node's streams hand every chunk over in memory of its own, never written again (a socket read, a parsed
    // HTTP/2 DATA frame, undici's body slice of a socket read), so a chunk that is (most of) its memory is kept
    // as it is: a copy per chunk was an allocation per recorded exchange. A small slice of a larger block (a
    // Buffer pool slab, a body sharing a read with much else) is copied, so a kept body never pins more than
    // it is worth, whoever keeps the exchange afterwards.
    if (part.buffer.byteLength > part.length + MAX_PINNED_EXTRA) this.chunks.push(Buffer.from(part));
    else this.chunks.push(Buffer.isBuffer(part) ? part : Buffer.from(part.buffer, part.byteOffset, part.length));
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
