/**
 * Makes `AsyncResource.prototype.bind` cheap again in processes Netlens owns.
 *
 * Why: node:http2's `ClientHttp2Session.request` binds each request's start to an AsyncResource
 * (`reqAsync.bind(...)`), and Node 20's `bind` gives every bound function a deprecated `asyncResource`
 * accessor (DEP0172) made by `util.deprecate` twice, each wrapper re-parented with `Object.setPrototypeOf`
 * onto a fresh function. For issue 17 that was the single largest item of the HTTP/2 upstream path: in the
 * lab's page shape (bursts of 200 image requests, `bench/profile.ts h2`) `bind` took 11.7 µs of the 40.6 µs
 * charged to `requestH2`, and the paired windows of `bench/h2-paired.ts` (8 rounds each way) put the whole
 * proxy's CPU per request at 0.86× with it replaced (rounds 0.78–1.04×), and the unpatched one at 1.29× the
 * patched (1.06–1.60×). The node:http2 floor (bench/peers/node-minimal-h2-mitm.ts) pays it too.
 *
 * The replacement behaves as Node's does — the bound function runs `fn` in the resource's async scope with
 * the caller's `this` (or `thisArg`) and arguments, has `fn`'s length, and its `asyncResource` property
 * reads (and can be set) as before — but that property is a plain one, so reading it emits no DEP0172
 * warning. Only where Node's `bind` still makes the deprecated accessor (a later Node without it is left
 * alone), and only from entry points Netlens owns (the CLI, the desktop app's main process, the lab's proxy
 * child): it changes a Node built-in for the whole process, which a library must not do to its host.
 */
import { AsyncResource } from 'node:async_hooks';

type Bind = (this: AsyncResource, fn: unknown, thisArg?: unknown) => unknown;
type AnyFunction = (...args: unknown[]) => unknown;

const proto = AsyncResource.prototype as unknown as { bind: Bind };
let replaced: Bind | undefined;

/** Whether this Node's `bind` makes the deprecated accessor (the costly part). */
function makesDeprecatedAccessor(): boolean {
  const probe = new AsyncResource('NetlensBindProbe').bind(() => undefined);
  return typeof Object.getOwnPropertyDescriptor(probe, 'asyncResource')?.get === 'function';
}

/** Replaces `AsyncResource.prototype.bind` (see above); idempotent. Returns whether the replacement is in place. */
export function useFastAsyncBind(): boolean {
  if (replaced && proto.bind === replaced) return true;
  if (!makesDeprecatedAccessor()) return false;
  const original = proto.bind;
  replaced = function bind(this: AsyncResource, fn: unknown, thisArg?: unknown): unknown {
    // Node's own validation and error for a non-function.
    if (typeof fn !== 'function') return original.call(this, fn, thisArg);
    return boundTo(this, fn as AnyFunction, thisArg);
  };
  proto.bind = replaced;
  return true;
}

/** What Node's `bind` returns, with a plain `asyncResource` property. */
function boundTo(resource: AsyncResource, fn: AnyFunction, thisArg: unknown): AnyFunction {
  const bound: AnyFunction =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]) {
          // Looked up per call, as Node's does: a subclass's runInAsyncScope is honoured.
          return resource.runInAsyncScope(fn, this, ...args);
        }
      : (resource.runInAsyncScope.bind(resource, fn, thisArg) as AnyFunction);
  Object.defineProperties(bound, {
    length: { configurable: true, enumerable: false, value: fn.length, writable: false },
    asyncResource: { configurable: true, enumerable: true, value: resource, writable: true },
  });
  return bound;
}
