/**
 * Reading a client request body when rules need it whole (body matchers, body rewrites):
 * bounded, so a huge upload is streamed on instead of held; nothing already read is lost.
 */
import { Readable } from 'node:stream';

/**
 * A response body rewrite (rewriteResponse body edits, injectScript) holds at most this much, read
 * and decoded; a larger body is passed through unchanged and the exchange's rule notes it.
 */
export const REWRITE_BODY_LIMIT = 8 * 1024 * 1024;

export interface ReadBody {
  /** The whole body, or null when there is none or it was over the bound. */
  whole: Buffer | null;
  /** The stream to forward: the bytes read, then the rest. */
  forward: Readable | null;
}

export async function readBounded(src: Readable | null, max: number): Promise<ReadBody> {
  if (!src) return { whole: null, forward: null };
  const chunks: Buffer[] = [];
  let size = 0;
  const complete = await new Promise<boolean>((resolve) => {
    const done = (whole: boolean) => {
      src.off('data', onData);
      src.off('end', onEnd);
      src.off('close', onClose);
      src.off('error', onClose);
      resolve(whole);
    };
    const onData = (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      if (size > max) {
        src.pause();
        done(false);
      }
    };
    const onEnd = () => done(true);
    const onClose = () => done(false);
    src.on('data', onData);
    src.once('end', onEnd);
    src.once('close', onClose);
    src.once('error', onClose);
  });
  if (complete) {
    const whole = Buffer.concat(chunks);
    return { whole, forward: Readable.from([whole]) };
  }
  const rest = async function* () {
    yield* chunks;
    for await (const c of src as AsyncIterable<Buffer>) yield c;
  };
  return { whole: null, forward: Readable.from(rest()) };
}

/** Reads a whole readable (the caller bounds its use). */
export async function readAll(src: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of src as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}
