/** The process hosting the lab's proxies (proxy-process.ts): a fresh proxy per run, recording there, clear errors. */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanJournal } from '../../src/har/journal.js';
import { startProxyHost } from '../../src/lab/proxy-process.js';
import { LOOP_RESOLUTION_MS } from '../../src/lab/measure.js';
import { alive, curl, echo, httpOrigin } from '../proxy/harness.js';

describe('startProxyHost', () => {
  it("runs each run's proxy in another process, fresh per run, records the journal there, and reports metrics and event-loop lag", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-proxyhost-'));
    const origin = await httpOrigin(echo);
    const host = await startProxyHost();
    try {
      expect(host.pid).not.toBe(process.pid);
      expect(alive(host.pid)).toBe(true);
      for (const round of [1, 2]) {
        const journal = path.join(dir, `run${round}.journal`);
        const run = await host.startRun({ proxy: { port: 0, dataDir: dir }, journal: { file: journal, name: `run ${round}` } });
        for (const p of ['/a', '/b']) expect((await curl(['-x', run.url, `${origin.url}${p}`])).code).toBe(0);
        // The event-loop delay monitor samples every LOOP_RESOLUTION_MS: a run shorter than that (two quick curls can be)
        // has no sample and reports no lag. Long enough for a few.
        await new Promise((r) => setTimeout(r, LOOP_RESOLUTION_MS * 4));
        const result = await run.stop();
        // Fresh per run: only this run's exchanges, on a connection of its own.
        expect(result.metrics).toMatchObject({ exchanges: 2, errors: 0, upstreamConnections: 1 });
        expect(result.recorded).toBe(2);
        expect(result.eventLoopDelayMs?.max).toBeGreaterThanOrEqual(0);
        // Idempotent: a second stop returns the same result.
        expect(await run.stop()).toEqual(result);
        // The run's proxy is gone: its port refuses connections.
        expect((await curl(['-x', run.url, `${origin.url}/after`])).code).not.toBe(0);
        const scan = await scanJournal(journal);
        expect(scan.meta?.name).toBe(`run ${round}`);
        expect(scan.entries.length).toBe(2);
      }
      expect(origin.connections).toBe(2);
    } finally {
      await host.close();
      await origin.close();
    }
    expect(alive(host.pid)).toBe(false);
  });

  it("a run whose proxy cannot start fails with the proxy's own error, and the host keeps serving runs", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-proxyhost-'));
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as net.AddressInfo).port;
    const host = await startProxyHost();
    try {
      await expect(host.startRun({ proxy: { port, host: '127.0.0.1', dataDir: dir } })).rejects.toMatchObject({
        code: 'NL_PORT_IN_USE',
        message: expect.stringMatching(/already in use/),
      });
      const run = await host.startRun({ proxy: { port: 0, dataDir: dir } });
      expect((await run.stop()).metrics.exchanges).toBe(0);
    } finally {
      busy.close();
      await host.close();
    }
  });
});
