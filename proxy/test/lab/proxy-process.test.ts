/** The lab's proxy in its own process (proxy-process.ts): start, record, report, stop, and fail clearly. */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanJournal } from '../../src/har/journal.js';
import { startProxyProcess } from '../../src/lab/proxy-process.js';
import { curl, echo, httpOrigin } from '../proxy/harness.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('startProxyProcess', () => {
  it('runs the proxy in another process, records the journal there, and reports metrics and event-loop lag on close', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-proxyproc-'));
    const origin = await httpOrigin(echo);
    const journal = path.join(dir, 'run.journal');
    const proxy = await startProxyProcess({ proxy: { port: 0, dataDir: dir }, journal: { file: journal, name: 'test run' } });
    try {
      expect(proxy.pid).not.toBe(process.pid);
      expect(alive(proxy.pid)).toBe(true);
      for (const p of ['/a', '/b']) expect((await curl(['-x', proxy.url, `${origin.url}${p}`])).code).toBe(0);
      const result = await proxy.close();
      expect(result?.metrics).toMatchObject({ exchanges: 2, errors: 0, upstreamConnections: 1 });
      expect(result?.recorded).toBe(2);
      expect(result?.eventLoopDelayMs?.max).toBeGreaterThanOrEqual(0);
      expect(alive(proxy.pid)).toBe(false);
      const scan = await scanJournal(journal);
      expect(scan.meta?.name).toBe('test run');
      expect(scan.entries.length).toBe(2);
      // Idempotent: a second close returns the same result.
      expect(await proxy.close()).toEqual(result);
    } finally {
      await proxy.close();
      await origin.close();
    }
  });

  it('rejects with the proxy\'s own error (code and message) when it cannot start', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-proxyproc-'));
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      await expect(startProxyProcess({ proxy: { port, host: '127.0.0.1', dataDir: dir } })).rejects.toMatchObject({ code: 'NL_PORT_IN_USE', message: expect.stringMatching(/already in use/) });
    } finally {
      busy.close();
    }
  });
});
