/**
 * The socket timeline in the UI: real requests through the proxy (`netlens serve --nagle`),
 * one keep-alive client connection, an origin that sends a response's head and body
 * in separate small writes, and pauses between requests. Connections shows a lane per
 * connection with write and read ticks and stalls; Details → Connection shows the
 * request's legs, its neighbours and its stalls; the waterfall marks stalled requests.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { AddressInfo, Socket } from 'node:net';
import { test as base, expect, snap, startServe, stopServe, type Serve } from './fixtures';

const test = base.extend<{ nagleServe: Serve; insecureServe: Serve }>({
  nagleServe: async ({}, use) => {
    const { serve, child } = await startServe(['--nagle']);
    await use(serve);
    await stopServe(child, serve.dataDir);
  },
  // The h2 origin below has a self-signed certificate.
  insecureServe: async ({}, use) => {
    const { serve, child } = await startServe(['--insecure']);
    await use(serve);
    await stopServe(child, serve.dataDir);
  },
});

/** An origin whose /split answers with the head first, then two small body writes 5 ms apart (a naive server). */
async function splitOrigin(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/split')) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.flushHeaders();
      setTimeout(() => res.write('a'.repeat(100)), 5);
      setTimeout(() => res.end('b'.repeat(100)), 10);
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, pad: 'x'.repeat(2000) }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

/** GETs on one keep-alive connection through the proxy, `pauseMs` apart (the client stays silent meanwhile). */
async function keepAliveGets(proxyUrl: string, urls: string[], pauseMs: number): Promise<void> {
  const p = new URL(proxyUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (const url of urls) {
      await new Promise<void>((resolve, reject) => {
        const req = http.get(
          { host: p.hostname, port: p.port, path: url, agent, headers: { host: new URL(url).host, 'user-agent': 'netlens-e2e' } },
          (res) => {
            res.resume();
            res.on('end', () => resolve());
          },
        );
        req.on('error', reject);
      });
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  } finally {
    agent.destroy();
  }
}

test('Connections draws lanes with ticks and stalls; Details → Connection shows the legs, neighbours and stall message', async ({
  page,
  nagleServe: serve,
}) => {
  expect(serve.proxyUrl, serve.output()).toBeTruthy();
  const site = await splitOrigin();
  try {
    await page.goto(serve.url);
    await keepAliveGets(
      serve.proxyUrl!,
      [`${site.url}/first.json`, `${site.url}/split-1`, `${site.url}/middle.json`, `${site.url}/split-2`],
      // The detector counts 30–250 ms of client silence: 50 ms leaves room for a loaded machine either way.
      50,
    );
    await expect(page.getByTestId('traffic-row')).toHaveCount(4);

    await page.getByTestId('tab-connections').click();
    await expect(page.getByTestId('connections-view')).toBeVisible();
    // One client connection (keep-alive) and at least one upstream connection.
    const lanes = page.getByTestId('connection-lane');
    await expect(lanes.filter({ hasText: 'client' }).first()).toBeVisible();
    await expect(lanes.filter({ hasText: 'upstream' }).first()).toBeVisible();
    const client = lanes.filter({ hasText: 'client' }).first();
    await expect(client).toContainText('4 exchanges');
    const ticks = client.getByTestId('lane-ticks');
    expect(Number(await ticks.getAttribute('data-writes'))).toBeGreaterThan(3);
    expect(Number(await ticks.getAttribute('data-reads'))).toBeGreaterThanOrEqual(4);
    // Ticks are drawn: the write path has segments.
    expect((await ticks.locator('path').first().getAttribute('d'))!.length).toBeGreaterThan(10);
    await expect(client.getByTestId('lane-bar')).toHaveCount(4);
    await snap(page, 'connections-view');

    // The small body writes after the head, followed by the client's 50 ms pause, are flagged as stalls with their message.
    await expect(page.getByTestId('connections-summary')).toContainText('stall');
    const stall = client.getByTestId('lane-stall').first();
    await expect(stall).toBeVisible();
    const box = (await stall.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 4);
    await expect(page.getByTestId('connections-tooltip')).toContainText("Nagle's algorithm");
    await snap(page, 'connections-stall-hover');
    await page.getByTestId('stall-item').first().click();
    await expect(page.getByTestId('stall-item').first()).toHaveClass(/selected/);
    await expect(page.getByTestId('stall-list')).toContainText('delayed ACK');

    // The waterfall marks the stalled requests.
    await page.getByTestId('tab-waterfall').click();
    await expect(page.getByTestId('waterfall-row').filter({ hasText: 'split-1' }).getByTestId('stall-marker')).toBeVisible();
    await expect(page.getByTestId('waterfall-row').filter({ hasText: 'first.json' }).getByTestId('stall-marker')).toHaveCount(0);
    const title = await page.getByTestId('stall-marker').first().getAttribute('title');
    expect(title).toMatch(/^Stalled: 1 stall/);
    await snap(page, 'connections-waterfall-marker');

    // Details → Connection of a stalled request: its legs, the requests around it on the keep-alive connection, its stall.
    await page.getByTestId('tab-traffic').click();
    await page.getByTestId('traffic-row').filter({ hasText: 'split-1' }).click();
    await page.getByTestId('details-tab-connection').click();
    const panel = page.getByTestId('connection-panel');
    await expect(panel).toContainText('Client leg');
    await expect(panel).toContainText('Upstream leg');
    await expect(panel.getByTestId('connection-leg').first()).toContainText('request 2 of 4 on it');
    await expect(panel.getByTestId('connection-leg').first()).toContainText('first.json');
    await expect(panel.getByTestId('connection-leg').first()).toContainText('middle.json');
    await expect(panel.getByTestId('connection-stalls')).toContainText('1 stall');
    await expect(panel.getByTestId('stall-list')).toContainText("Nagle's algorithm");
    await expect(panel.getByTestId('connection-chart').getByTestId('connection-lane').first()).toBeVisible();
    await snap(page, 'connections-details-tab');

    // A neighbour link selects that request and stays on the Connection tab.
    await panel.getByTestId('neighbour-link').filter({ hasText: 'middle.json' }).first().click();
    await expect(page.getByTestId('details-general').or(page.getByTestId('connection-panel'))).toBeVisible();
    await expect(page.getByTestId('connection-panel').getByTestId('connection-leg').first()).toContainText('request 3 of 4 on it');
    await expect(page.getByTestId('connection-panel').getByTestId('connection-stalls')).toContainText('none detected');

    // Saved as a session, the timeline comes along: the opened session draws the same lanes and stall.
    await page.getByTestId('save-session').click();
    await page.getByTestId('name-input').fill('Split writes');
    await page.getByTestId('name-confirm').click();
    await expect(page.getByTestId('toast-ok').filter({ hasText: 'Saved "Split writes"' })).toBeVisible();
    await page.getByTestId('tab-sessions').click();
    await page.getByTestId('session-open').click();
    await expect(page.getByTestId('session-banner')).toContainText('Split writes');
    await page.getByTestId('tab-connections').click();
    await expect(page.getByTestId('connection-lane').filter({ hasText: 'client' }).first()).toContainText('4 exchanges');
    await expect(page.getByTestId('connections-summary')).toContainText('1 stall');
    await expect(page.getByTestId('stall-list')).toContainText('GET split-1');
    await snap(page, 'connections-session');
  } finally {
    await site.close();
  }
});

test('parallel client connections each get a lane, followed by the upstream lanes they used', async ({ page, nagleServe: serve }) => {
  const site = await splitOrigin();
  try {
    await page.goto(serve.url);
    // Six clients at once, each with its own keep-alive connection: 6 client lanes.
    await Promise.all(
      Array.from({ length: 6 }, (_, c) =>
        keepAliveGets(
          serve.proxyUrl!,
          Array.from({ length: 4 }, (_, i) => `${site.url}/c${c}-r${i}.json`),
          10,
        ),
      ),
    );
    await expect(page.getByTestId('traffic-row')).toHaveCount(24);
    await page.getByTestId('tab-connections').click();
    const lanes = page.getByTestId('connection-lane');
    await expect(lanes.filter({ hasText: 'client' })).toHaveCount(6);
    expect(await lanes.filter({ hasText: 'upstream' }).count()).toBeGreaterThan(0);
    // The first lane is a client lane, and every client lane carries its 4 exchanges.
    await expect(lanes.first()).toContainText('client');
    for (const lane of await lanes.filter({ hasText: 'client' }).all()) await expect(lane).toContainText('4 exchanges');
    await snap(page, 'connections-parallel');
  } finally {
    await site.close();
  }
});

/** An HTTP/2 origin on 127.0.0.1 with a self-signed certificate, answering 2 KB after 5 ms. */
async function h2Origin(): Promise<{ url: string; close(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-h2-origin-'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem'].concat([
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]),
    { cwd: dir, stdio: 'pipe' },
  );
  const server = http2.createSecureServer({
    key: fs.readFileSync(path.join(dir, 'key.pem')),
    cert: fs.readFileSync(path.join(dir, 'cert.pem')),
  });
  server.on('stream', (stream) => {
    setTimeout(() => {
      if (stream.destroyed) return;
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      stream.end(JSON.stringify({ pad: 'x'.repeat(2000) }));
    }, 5);
  });
  // The proxy keeps its pooled session to the origin open: close ends it.
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => sessions.add(session));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const close = () => {
    for (const session of sessions) session.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return { url: `https://127.0.0.1:${port}`, close };
}

/** `n` GETs, three at a time, on one HTTP/2 connection through the intercepting proxy (trusting its CA). */
async function h2GetsViaProxy(proxyUrl: string, caPem: string, originUrl: string, n: number): Promise<void> {
  const p = new URL(proxyUrl);
  const o = new URL(originUrl);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const req = http.request({ host: p.hostname, port: p.port, method: 'CONNECT', path: o.host, agent: false });
    req.on('connect', (_res, s) => resolve(s));
    req.on('error', reject);
    req.end();
  });
  const session = http2.connect(originUrl, {
    createConnection: () => tls.connect({ socket, host: o.hostname, ALPNProtocols: ['h2'], ca: caPem }),
  });
  const get = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const st = session.request({ ':path': `/h2-${i}.json` });
      st.on('error', reject);
      st.resume();
      st.on('end', () => resolve());
    });
  try {
    for (let i = 0; i < n; i += 3) await Promise.all([i, i + 1, i + 2].filter((k) => k < n).map(get));
  } finally {
    session.close();
  }
}

test('an HTTP/2 session gets a client lane and an upstream lane of frames, marked HTTP/2, with every request on them', async ({
  page,
  insecureServe: serve,
}) => {
  const site = await h2Origin();
  try {
    await page.goto(serve.url);
    const caFile = (fs.readdirSync(serve.dataDir, { recursive: true }) as string[]).find((f) => path.basename(f) === 'netlens-ca.pem');
    expect(caFile, 'the proxy CA in the data directory').toBeTruthy();
    await h2GetsViaProxy(serve.proxyUrl!, fs.readFileSync(path.join(serve.dataDir, caFile!), 'utf8'), site.url, 7);
    await expect(page.getByTestId('traffic-row')).toHaveCount(7);
    await page.getByTestId('tab-connections').click();
    const lanes = page.locator('[data-testid="connection-lane"][data-framing="h2"]');
    await expect(lanes).toHaveCount(2);
    await expect(page.getByTestId('legend-h2')).toContainText('HTTP/2 frames');
    for (const lane of await lanes.all()) {
      await expect(lane.getByTestId('lane-h2')).toBeVisible();
      await expect(lane).toContainText('7 exchanges');
      await expect(lane.getByTestId('lane-bar')).toHaveCount(7);
      // Per request at least a HEADERS frame each way; the response's DATA too.
      const ticks = lane.getByTestId('lane-ticks');
      expect(Number(await ticks.getAttribute('data-writes'))).toBeGreaterThanOrEqual(7);
      expect(Number(await ticks.getAttribute('data-reads'))).toBeGreaterThanOrEqual(7);
    }
    await expect(page.getByTestId('connections-summary')).toContainText('no stalls');
    await snap(page, 'connections-h2');
  } finally {
    await site.close();
  }
});
