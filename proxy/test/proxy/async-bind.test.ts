/**
 * AsyncResource.bind without Node 20's deprecated accessor (upstream/async-bind.ts): bound functions behave as
 * Node's do (async scope, this, arguments, length, asyncResource), node:http2 client requests still work before
 * and after their session connects, and the CLI puts it in place. The original is restored after this file.
 */
import { execFile } from 'node:child_process';
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import http2 from 'node:http2';
import type net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { useFastAsyncBind } from '../../src/upstream/async-bind.js';

const original = AsyncResource.prototype.bind;
afterAll(() => {
  AsyncResource.prototype.bind = original;
});

type Fn = (...args: unknown[]) => unknown;

describe('useFastAsyncBind', () => {
  it("replaces Node 20's bind, whose bound functions carry the deprecated accessor, once", () => {
    // The control: Node's own bind makes the accessor (the costly part) on this Node.
    expect(
      typeof Object.getOwnPropertyDescriptor(
        new AsyncResource('t').bind(() => 1),
        'asyncResource',
      )?.get,
    ).toBe('function');
    expect(useFastAsyncBind()).toBe(true);
    const replaced = AsyncResource.prototype.bind;
    expect(replaced).not.toBe(original);
    expect(useFastAsyncBind()).toBe(true);
    expect(AsyncResource.prototype.bind).toBe(replaced);
    const d = Object.getOwnPropertyDescriptor(
      new AsyncResource('t').bind(() => 1),
      'asyncResource',
    );
    expect(d?.get).toBeUndefined();
    expect(d).toMatchObject({ enumerable: true, configurable: true, writable: true });
  });

  it("runs the function in the resource's async scope with the caller's this and arguments, as Node's does", () => {
    useFastAsyncBind();
    const als = new AsyncLocalStorage<string>();
    const resource = als.run('at creation', () => new AsyncResource('t'));
    function probe(this: unknown, a: unknown, b: unknown) {
      return { store: als.getStore(), self: this, args: [a, b] };
    }
    const bound = resource.bind(probe as Fn) as Fn & { asyncResource: AsyncResource };
    const self = { name: 'caller' };
    expect(als.run('at call', () => bound.call(self, 1, 2))).toEqual({ store: 'at creation', self, args: [1, 2] });
    expect(bound.length).toBe(2);
    expect(bound.asyncResource).toBe(resource);
    // Settable, as Node's accessor is; the bound function keeps its resource.
    const other = new AsyncResource('other');
    bound.asyncResource = other;
    expect(bound.asyncResource).toBe(other);
    expect(als.run('at call', () => (bound() as { store: string }).store)).toBe('at creation');

    // With thisArg: bound to it whatever the caller's this.
    // (Node takes a thisArg; @types/node leaves it out.)
    const withThis = (resource.bind as unknown as (fn: Fn, thisArg: unknown) => Fn).call(resource, probe as Fn, self);
    expect(als.run('at call', () => withThis.call({ name: 'ignored' }, 3, 4))).toEqual({ store: 'at creation', self, args: [3, 4] });
    // The static form goes through the prototype's bind.
    const staticBound = als.run('static', () => AsyncResource.bind(() => als.getStore()));
    expect(staticBound()).toBe('static');
  });

  it("keeps Node's error for a function that is not one", () => {
    useFastAsyncBind();
    expect(() => new AsyncResource('t').bind(42 as unknown as Fn)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
  });

  it('node:http2 client requests made while the session connects and after it are answered', async () => {
    useFastAsyncBind();
    const server = http2.createServer((req, res) => res.end(`answer ${req.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = http2.connect(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`);
    const get = (p: string) =>
      new Promise<string>((resolve, reject) => {
        const s = session.request({ ':path': p });
        let body = '';
        s.on('data', (d: Buffer) => (body += d));
        s.once('end', () => resolve(body));
        s.once('error', reject);
      });
    try {
      // The first goes out before 'connect' (Node queues it as a bound call), the second after.
      const early = get('/early');
      expect(session.connecting).toBe(true);
      expect(await early).toBe('answer /early');
      expect(await get('/late')).toBe('answer /late');
    } finally {
      session.close();
      server.close();
    }
  });

  it('the CLI puts it in place before running a command', async () => {
    const script = [
      "import './proxy/test/setup-app-paths.ts';",
      "import { AsyncResource } from 'node:async_hooks';",
      "import { main } from './proxy/src/cli/main.ts';",
      'await main(["--version"], { stdout: { write: () => true }, stderr: process.stderr });',
      "const d = Object.getOwnPropertyDescriptor(new AsyncResource('t').bind(() => 1), 'asyncResource');",
      'console.log(JSON.stringify({ accessor: typeof d?.get === "function" }));',
    ].join('\n');
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 30_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ accessor: false });
  });
});
