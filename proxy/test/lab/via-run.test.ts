/**
 * Via cells for real: the probe against good and bad external proxies, and a
 * lab run through another Netlens proxy that has its own CA (a different data
 * directory), so Chrome accepts its certificates only because the lab trusts
 * the key the probe saw. Everything on 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLab } from '../../src/lab/runner.js';
import type { LabProgress, LabResult } from '../../src/lab/types.js';
import { probeViaProxy } from '../../src/lab/via-probe.js';
import { startProxy, type ProxyHandle } from '../../src/server/proxy-server.js';
import { loadOrCreateCA } from '../../src/tls/ca.js';
import { chromePath } from '../browser/chrome-available.js';

let dir: string;
const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();
/** This process's test-site children still running (the lab forks one per run of runLab). */
const siteChildren = () =>
  execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)])
    .toString()
    .split('\n')
    .filter((l) => l.includes('site-child'));
const profileDirs = () =>
  fs
    .readdirSync(os.tmpdir())
    .filter((d) => d.startsWith(`netlens-chrome-${process.pid}-`))
    .sort();

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-labvia-'));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A TCP server on 127.0.0.1 that does `onSocket` with every connection; resolves with its URL. */
async function fakeProxy(onSocket: (s: net.Socket) => void): Promise<string> {
  const server = net.createServer((s) => {
    s.on('error', () => undefined);
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    onSocket(s);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** A port nothing listens on (bound, then released). */
async function deadUrl(): Promise<string> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}`;
}

/** Answers the first request head with `answer`, leaving the connection open. */
const answering = (answer: string) => (s: net.Socket) => s.once('data', () => s.write(answer));

const target = new URL('https://127.0.0.1:9/');
/** What the lab finds listening on a via URL served by this very process (lab/listener-pids.ts; Linux only). */
const ownPids = process.platform === 'linux' ? { pids: [process.pid] } : {};

describe('probeViaProxy', () => {
  let good: ProxyHandle;
  beforeAll(async () => {
    good = await startProxy({ port: 0, dataDir: path.join(dir, 'probe-proxy') });
  });
  afterAll(() => good?.stop());

  it("returns the SPKI hash of the leaf an intercepting proxy presents (its own CA key, not the lab's)", async () => {
    const leaf = await probeViaProxy({ name: 'good', url: good.address.url }, target);
    expect(leaf.spkiHash).toBe(good.ca.leafSpkiHash);
    expect(leaf.spkiHash).not.toBe(loadOrCreateCA(path.join(dir, 'lab-ca-only')).leafSpkiHash);
    expect(leaf.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });

  it('says when nothing listens', async () => {
    const url = await deadUrl();
    await expect(probeViaProxy({ name: 'dead', url }, target)).rejects.toMatchObject({
      code: 'NL_LAB_VIA_PROXY',
      message: `external proxy dead at ${url} refused the connection: is it running?`,
    });
  });

  it('says when CONNECT is refused, with the status', async () => {
    const url = await fakeProxy(answering('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n'));
    await expect(probeViaProxy({ name: 'strict', url }, target)).rejects.toMatchObject({
      code: 'NL_LAB_VIA_PROXY',
      message: expect.stringMatching(
        /^external proxy strict at http:\/\/127\.0\.0\.1:\d+ refused CONNECT 127\.0\.0\.1:9 with "403 Forbidden": does it allow tunnels/,
      ),
    });
  });

  it('says when the address is not an HTTP proxy (other protocol, silence, hang-up)', async () => {
    const ssh = await fakeProxy(answering('SSH-2.0-OpenSSH_9.6\r\n'));
    await expect(probeViaProxy({ name: 'ssh', url: ssh }, target)).rejects.toMatchObject({
      code: 'NL_LAB_VIA_PROXY',
      message: expect.stringMatching(/did not answer CONNECT like an HTTP proxy \(it sent "SSH-2\.0/),
    });
    const silent = await fakeProxy(() => undefined);
    await expect(probeViaProxy({ name: 'silent', url: silent }, target, 300)).rejects.toMatchObject({
      code: 'NL_LAB_VIA_PROXY',
      message: expect.stringMatching(/did not answer CONNECT 127\.0\.0\.1:9 within 0\.3 s/),
    });
    const rude = await fakeProxy((s) => s.once('data', () => s.end()));
    await expect(probeViaProxy({ name: 'rude', url: rude }, target)).rejects.toMatchObject({
      code: 'NL_LAB_VIA_PROXY',
      message: expect.stringMatching(/closed the connection without answering CONNECT/),
    });
  });

  it('says when the proxy sends more than a CONNECT answer before the TLS handshake', async () => {
    const url = await fakeProxy(answering('HTTP/1.1 200 OK\r\n\r\n<html>a login page</html>'));
    await expect(probeViaProxy({ name: 'portal', url }, target)).rejects.toMatchObject({
      code: 'NL_LAB_VIA_PROXY',
      message: expect.stringMatching(/sent data after accepting CONNECT 127\.0\.0\.1:9, before the TLS handshake/),
    });
  });

  it('says when TLS through the tunnel fails', async () => {
    // Accepts the tunnel, then answers the client hello with plain text instead of a server hello.
    const url = await fakeProxy((s) =>
      s.once('data', () => {
        s.write('HTTP/1.1 200 Connection established\r\n\r\n');
        s.once('data', () => s.write('HTTP/1.1 400 Bad Request\r\n\r\n'));
      }),
    );
    await expect(probeViaProxy({ name: 'notls', url }, target)).rejects.toMatchObject({
      code: 'NL_LAB_VIA_PROXY',
      message: expect.stringMatching(/^TLS to 127\.0\.0\.1:9 through external proxy notls at http:\/\/127\.0\.0\.1:\d+ failed: /),
    });
  });
});

describe('runLab with a broken external proxy', () => {
  // chromePath: any executable; the lab must fail at the probe, before a browser starts.
  const base = { cells: ['direct+h2' as const], runs: 1, chromePath: process.execPath };

  it('fails before any run with NL_LAB_VIA_PROXY (dead URL), leaving no browser profile', async () => {
    const url = await deadUrl();
    const progress: LabProgress[] = [];
    const before = profileDirs();
    await expect(
      runLab(
        { ...base, target: { kind: 'url', url: 'https://127.0.0.1:9/' }, via: [{ name: 'gone', url }], dataDir: path.join(dir, 'data') },
        { onProgress: (p) => progress.push(p) },
      ),
    ).rejects.toMatchObject({ code: 'NL_LAB_VIA_PROXY', message: `external proxy gone at ${url} refused the connection: is it running?` });
    expect(progress).toEqual([]);
    expect(profileDirs()).toEqual(before);
  });

  it('fails with NL_LAB_VIA_PROXY when the proxy answers CONNECT with 403, and the test site is closed again', async () => {
    const url = await fakeProxy(answering('HTTP/1.1 403 Forbidden\r\n\r\n'));
    expect(siteChildren()).toEqual([]);
    await expect(
      runLab({ ...base, target: { kind: 'site', images: 1, latencyMs: 0 }, via: [{ name: 'corp', url }], dataDir: path.join(dir, 'data') }),
    ).rejects.toMatchObject({
      code: 'NL_LAB_VIA_PROXY',
      message: expect.stringMatching(/external proxy corp at .* refused CONNECT 127\.0\.0\.1:\d+ with "403 Forbidden"/),
    });
    expect(siteChildren()).toEqual([]);
  }, 30_000);

  it('does not probe for an http:// target (no certificate to trust)', async () => {
    // The proxy would fail a probe (403); the lab gets past it and fails only at the browser.
    const url = await fakeProxy(answering('HTTP/1.1 403 Forbidden\r\n\r\n'));
    const result = await runLab({
      ...base,
      target: { kind: 'url', url: 'http://127.0.0.1:9/' },
      cells: ['via-corp+h2'],
      via: [{ name: 'corp', url }],
      dataDir: path.join(dir, 'data'),
    });
    // The fake proxy listens in this process: the lab found it there (Linux), as it finds a peer's process.
    expect(result.via).toEqual([{ name: 'corp', url, note: expect.stringMatching(/warm/), ...ownPids }]);
    expect(result.cells[0].runs[0].ok).toBe(false);
  }, 30_000);
});

describe.skipIf(!chromePath)('runLab through an external proxy (real Chromium, a second Netlens with its own CA)', () => {
  let via: ProxyHandle;
  let result: LabResult;
  const seen: { url: string; httpVersion: string }[] = [];
  let labCA: ReturnType<typeof loadOrCreateCA>;

  beforeAll(async () => {
    const labData = path.join(dir, 'lab-data');
    labCA = loadOrCreateCA(labData);
    // Its own data dir → its own CA and leaf key; it verifies the test site against the lab's CA.
    via = await startProxy({ port: 0, dataDir: path.join(dir, 'via-data'), upstreamCA: [labCA.certPem] });
    via.events.subscribe((e) => {
      if (e.type === 'complete') seen.push({ url: e.exchange.request.url, httpVersion: e.exchange.request.httpVersion });
    });
    const before = profileDirs();
    result = await runLab(
      {
        target: { kind: 'site', images: 3, latencyMs: 0 },
        cells: ['direct+h2', 'via-x+h2', 'via-x+h1'],
        via: [{ name: 'x', url: via.address.url }],
        runs: 1,
        quietMs: 150,
        timeoutMs: 15_000,
        seed: 3,
        dataDir: labData,
        outDir: path.join(dir, 'out'),
        chromePath,
      },
      { signal: AbortSignal.timeout(60_000) },
    );
    expect(profileDirs()).toEqual(before);
  }, 90_000);
  afterAll(() => via?.stop());

  it('loads the whole page in every cell', () => {
    expect(result.aborted).toBe(false);
    expect(result.cells.map((c) => c.id)).toEqual(['direct+h2', 'via-x+h2', 'via-x+h1']);
    for (const c of result.cells) {
      expect(
        c.runs.map((r) => r.error?.message ?? 'ok'),
        c.id,
      ).toEqual(['ok']);
      expect(c.runs[0].requests).toBe(result.expectedRequests);
    }
  });

  it('went through the external proxy, h2 to the browser in the h2 cell and HTTP/1.1 in the h1 cell', () => {
    const page = seen.filter((s) => s.url.startsWith(result.url));
    expect(page).toHaveLength(2 * result.expectedRequests);
    expect(page.filter((s) => s.httpVersion === 'h2')).toHaveLength(result.expectedRequests);
    const [h2, h1] = [result.cells[1].runs[0], result.cells[2].runs[0]];
    expect(h2.protocols).toEqual({ h2: result.expectedRequests });
    expect(h1.protocols).toEqual({ 'http/1.1': result.expectedRequests });
    // No Netlens proxy of the lab's own in a via cell.
    expect(h2.proxy).toBeUndefined();
    expect(h2.proxyHar).toBeUndefined();
  });

  it("trusted the key the probe saw, which is the external proxy's, not the lab's", () => {
    expect(result.via).toEqual([
      {
        name: 'x',
        url: via.address.url,
        leafSpkiHash: via.ca.leafSpkiHash,
        intercepts: true,
        note: expect.stringMatching(/warm/),
        ...ownPids,
      },
    ]);
    expect(via.ca.leafSpkiHash).not.toBe(labCA.leafSpkiHash);
    expect(result.config.via).toEqual([{ name: 'x', url: via.address.url }]);
  });

  it("read the external proxy's CPU per load like a Netlens proxy's, where it runs on this machine (Linux)", () => {
    for (const c of result.cells.slice(1)) {
      const cpu = c.runs[0].cpu?.proxy;
      if (process.platform !== 'linux') expect(cpu, c.id).toBeUndefined();
      else {
        // The external proxy here is this test's own process, so its figures are the lab's work too: only their shape is checked.
        expect(cpu, c.id).toMatchObject({ cpuMs: expect.any(Number), waitMs: expect.any(Number), mainThreadCpuMs: expect.any(Number) });
        expect(cpu!.cpuMs).toBeGreaterThan(0);
        expect(c.cpu?.proxy?.cpuMs, c.id).toBe(cpu!.cpuMs);
      }
    }
    expect(result.cells[0].runs[0].cpu?.proxy).toBeUndefined(); // direct: no proxy at all
  });

  it('compares via cells with direct of the same protocol, and effects pair only the two via cells', () => {
    expect(result.cells[1].settings).toEqual({ proxy: true, http2: true, intercept: false, nagle: false, via: 'x' });
    expect(result.cells[1].comparisons.loadMs?.baseline).toBe('direct+h2');
    expect(result.cells[2].comparisons.loadMs).toBeUndefined(); // direct+h1 did not run
    expect(result.effects.map((e) => [e.dimension, e.cell, e.versus])).toEqual([['http2', 'via-x+h2', 'via-x+h1']]);
  });
});

describe.skipIf(!chromePath)('runLab through an external proxy that does not trust the test site (real Chromium)', () => {
  it('fails the runs with the page status and tells the user which CA the proxy must trust', async () => {
    const labData = path.join(dir, 'lab-data-untrusted');
    const labCA = loadOrCreateCA(labData);
    // No upstreamCA: this proxy cannot verify the test site's certificate (mitmproxy by default answers 502 then; Netlens closes the connection).
    const untrusting = await startProxy({ port: 0, dataDir: path.join(dir, 'via-untrusting') });
    try {
      const result = await runLab(
        {
          target: { kind: 'site', images: 2, latencyMs: 0 },
          cells: ['via-strict+h1'],
          via: [{ name: 'strict', url: untrusting.address.url }],
          runs: 1,
          quietMs: 150,
          timeoutMs: 15_000,
          dataDir: labData,
          chromePath,
        },
        { signal: AbortSignal.timeout(60_000) },
      );
      const run = result.cells[0].runs[0];
      expect(run.ok).toBe(false);
      expect(run.error?.code).toBe('NL_PAGE_LOAD');
      // The external (Netlens) proxy answers 502 with the reason when it cannot verify the site (issue 15 item 2).
      expect(run.error?.message).toMatch(/the page itself answered 502 Bad Gateway/);
      expect(run.error?.message).toContain(
        `An external proxy that verifies upstream certificates must trust the test site's, issued by the Netlens CA ${labCA.certPath}`,
      );
    } finally {
      await untrusting.stop();
    }
  }, 90_000);
});
