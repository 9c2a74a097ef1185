/**
 * Upgrade requests get a response, a timeout and a HAR entry like every exchange
 * (issue 13 item 9): an Upgrade with a Content-Length body reaches the origin with
 * its body; an Upgrade to a silent origin times out (NL_UPSTREAM_TIMEOUT) and
 * frees both sockets; a client that abandons an unanswered Upgrade frees the
 * upstream socket and is recorded as NL_CLIENT_ABORTED.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpOrigin, tempDataDir, testProxy, type Origin, type TestProxy } from '../proxy/harness.js';
import { connect, eventually, fdCount, readUntil, sleep } from './lifecycle-helpers.js';

const HEAD_MS = 800;

let origin: Origin;
let silent: net.Server;
let silentPort: number;
const silentSockets = new Set<net.Socket>();
let tp: TestProxy;

beforeAll(async () => {
  // No 'upgrade' listener: Node answers an Upgrade request as a normal request (the echo).
  origin = await httpOrigin();
  silent = net.createServer((s) => {
    silentSockets.add(s);
    s.on('error', () => {});
    s.on('close', () => silentSockets.delete(s));
    s.resume(); // reads (and so sees the proxy's FIN), never answers
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentPort = (silent.address() as net.AddressInfo).port;
  tp = await testProxy({ dataDir: tempDataDir(), upstreamTimeoutMs: HEAD_MS });
});
afterAll(async () => {
  await tp.stop();
  await origin.close();
  for (const s of silentSockets) s.destroy();
  await new Promise((r) => silent.close(r));
});

const upgradeHead = (url: string, extra = '') =>
  `GET ${url} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n${extra}\r\n`;

describe('Upgrade requests', () => {
  it('forwards an Upgrade with a Content-Length body: the origin gets the body, the client a response, the HAR an entry', async () => {
    const s = await connect(tp.proxy.address.port);
    s.write(upgradeHead(`${origin.url}/up-body`, 'Content-Length: 5\r\n') + 'hello');
    const reply = await readUntil(s, '"bodyLength"', 5000);
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    expect(reply).toContain('"bodyLength":5');
    s.destroy();
    const x = (await tp.waitFor(1)).find((e) => e.request.url.endsWith('/up-body'));
    expect(x?.response?.status).toBe(200);
    expect(x?.error).toBeUndefined();
  });

  it('refuses an Upgrade with a chunked body (400, recorded) instead of hanging', async () => {
    const s = await connect(tp.proxy.address.port);
    s.write(upgradeHead(`${origin.url}/up-chunked`, 'Transfer-Encoding: chunked\r\n') + '5\r\nhello\r\n0\r\n\r\n');
    const reply = await readUntil(s, '\r\n\r\n', 5000);
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    s.destroy();
    const refused = () => tp.exchanges().some((x) => x.request.url.endsWith('/up-chunked') && x.error?.code === 'NL_CLIENT_MALFORMED');
    expect(await eventually(refused, 2000)).toBe(true);
  });

  it('times out 100 Upgrades to a silent origin: all recorded NL_UPSTREAM_TIMEOUT, every socket freed', async () => {
    await sleep(200);
    const base = fdCount();
    const clients = await Promise.all(Array.from({ length: 100 }, () => connect(tp.proxy.address.port)));
    for (const [i, s] of clients.entries()) s.write(upgradeHead(`http://127.0.0.1:${silentPort}/silent-${i}`));
    // The client sockets are closed by the proxy; ours are then closed too.
    await Promise.all(clients.map((s) => new Promise((r) => (s.destroyed ? r(null) : s.once('close', r)))));
    const recorded = () =>
      tp.exchanges().filter((x) => /\/silent-\d+$/.test(x.request.url) && x.error?.code === 'NL_UPSTREAM_TIMEOUT').length;
    expect(await eventually(() => recorded() === 100, 5000)).toBe(true);
    const freed = await eventually(() => silentSockets.size === 0 && fdCount() <= base + 5, 5000);
    expect(freed, `fds ${base} → ${fdCount()}, origin sockets ${silentSockets.size}`).toBe(true);
  });

  it('a client that abandons an unanswered Upgrade frees the upstream socket and is recorded', async () => {
    const s = await connect(tp.proxy.address.port);
    s.write(upgradeHead(`http://127.0.0.1:${silentPort}/abandoned`));
    expect(await eventually(() => silentSockets.size === 1, 2000)).toBe(true);
    s.destroy();
    expect(await eventually(() => silentSockets.size === 0, 2000)).toBe(true);
    expect(
      await eventually(
        () => tp.exchanges().some((x) => x.request.url.endsWith('/abandoned') && x.error?.code === 'NL_CLIENT_ABORTED'),
        2000,
      ),
    ).toBe(true);
  });
});
