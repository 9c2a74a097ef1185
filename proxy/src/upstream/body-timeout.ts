/**
 * Progress deadline for an upstream response body: an origin that sends part of
 * a body and then nothing (5 of 10 bytes, then silence) must not hold the client
 * open forever. The clock only runs while the proxy is waiting on the origin:
 * when the body has buffered data the client is the slow side (its own send
 * timeout applies), not the origin.
 *
 * One timer per response, re-armed lazily: a chunk costs one timestamp write.
 */
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { ErrorCodes } from '../errors.js';

export interface BodyWatchdog {
  /** A chunk arrived from the origin. */
  touch(): void;
  /** The body ended or failed. Idempotent. */
  stop(): void;
}

export function bodyTimeoutError(ms: number): Error {
  return Object.assign(new Error(`no response body bytes for ${ms} ms`), { code: ErrorCodes.UPSTREAM_BODY_TIMEOUT });
}

/** Destroys `body` with NL_UPSTREAM_BODY_TIMEOUT when no chunk arrives for `ms` while it waits on the origin. */
export function watchBody(body: Readable, ms: number, onExpire: (err: Error) => void = (err) => body.destroy(err)): BodyWatchdog {
  if (!(ms > 0)) return { touch() {}, stop() {} };
  let last = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    timer = undefined;
    if (body.destroyed || body.readableEnded) return;
    const idle = performance.now() - last;
    if (idle >= ms && body.readableLength === 0) onExpire(bodyTimeoutError(ms));
    else arm(idle >= ms ? ms : ms - idle);
  };
  const arm = (after: number) => {
    timer = setTimeout(check, after);
    timer.unref();
  };
  arm(ms);
  const stop = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  body.once('close', stop);
  return {
    touch: () => (last = performance.now()),
    stop,
  };
}
