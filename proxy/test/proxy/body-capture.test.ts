/**
 * BodyCapturer keeps a chunk that is (most of) its own memory by reference and copies a small slice of a
 * larger block, so a kept body never pins much more memory than its bytes; either way it captures the same
 * bytes, up to the limit, and counts all of them.
 */
import { describe, expect, it } from 'vitest';
import { BodyCapturer } from '../../src/server/body-capture.js';

describe('BodyCapturer', () => {
  it('keeps a chunk that is its whole memory without copying it', () => {
    const chunk = Buffer.from(new ArrayBuffer(300));
    chunk.fill(7);
    const c = new BodyCapturer(1024);
    c.push(chunk);
    const r = c.result();
    expect(r.bytes).toBe(chunk);
    expect(r).toMatchObject({ size: 300, truncated: false });
  });

  it('keeps a body that shares a small read with its head by reference (a view), a plain Uint8Array as a Buffer', () => {
    const read = new Uint8Array(1500);
    const body = read.subarray(1200);
    const c = new BodyCapturer(1024);
    c.push(body);
    const bytes = c.result().bytes as Buffer;
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes.buffer).toBe(read.buffer);
    expect(bytes.byteOffset).toBe(1200);
    expect(bytes.length).toBe(300);
  });

  it('copies a small slice of a large block (a pool slab, a large read), so it does not pin the block', () => {
    const block = Buffer.from(new ArrayBuffer(64 * 1024));
    const slice = block.subarray(100, 200).fill(9);
    const c = new BodyCapturer(1024);
    c.push(slice);
    const bytes = c.result().bytes;
    expect(bytes.buffer).not.toBe(block.buffer);
    expect(Buffer.from(bytes).equals(slice)).toBe(true);
    // A small string body is copied out of Buffer's pool too.
    const s = new BodyCapturer(1024);
    s.push('hello');
    expect(Buffer.from(s.result().bytes).toString()).toBe('hello');
  });

  it('captures the same bytes up to the limit across chunks and counts every byte', () => {
    const a = Buffer.from(new ArrayBuffer(40)).fill(1);
    const b = Buffer.from(new ArrayBuffer(8192)).subarray(0, 30).fill(2);
    const c = new BodyCapturer(50);
    c.push(a);
    c.push(b);
    c.push(Buffer.from('ignored past the limit'));
    const r = c.result();
    expect(r.size).toBe(40 + 30 + 22);
    expect(r.truncated).toBe(true);
    expect(Buffer.from(r.bytes).equals(Buffer.concat([a, b.subarray(0, 10)]))).toBe(true);
  });
});
