/**
 * The `replay` API command over the real proxy: "Serve this session" makes the
 * proxy answer from a stored session (and the replayed exchanges show in the
 * live capture); "Resend" reports what changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreService } from '../../src/api/core-service.js';
import { memorySessions } from '../../src/api/backends.js';
import { curl, httpOrigin, tempDataDir, type Origin } from '../proxy/harness.js';
import { pageHandler, recordHar, type PageState } from './helpers.js';

const dataDir = tempDataDir();
const harFile = path.join(dataDir, 's.har');
const state: PageState = { counter: 0, bodies: { '/x': 'recorded x', '/y': 'recorded y' }, status: {} };
let origin: Origin;

beforeAll(async () => {
  origin = await httpOrigin(pageHandler(state));
  await recordHar(dataDir, harFile, 2, async (proxy) => {
    for (const p of ['/x', '/y']) expect((await curl(['-x', proxy.address.url, origin.url + p])).stdout).toMatch(/^recorded/);
  });
}, 30_000);

afterAll(async () => {
  await origin.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('replay API command', () => {
  it('serve: the proxy answers from the session; resend: the changed request is reported', async () => {
    const s = new CoreService({ dataDir, proxy: { port: 0 }, sessions: memorySessions(), batchMs: 10 });
    try {
      expect((await s.getStatus()).features.replay).toBe(true);
      const info = await s.importHar({ fileName: 's.har', text: fs.readFileSync(harFile, 'utf8') });
      await s.startProxy();
      state.bodies['/x'] = 'changed x!';

      const resent = await s.replay({ id: info.id, mode: 'resend' });
      expect(resent.message).toMatch(/Resent 2 requests of "s" through the proxy.*: 1 changed, 0 failed, 1 unchanged/);
      expect(resent.message).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/x .*\[body\]/);

      const served = await s.replay({ id: info.id, mode: 'serve' });
      const url = /on (http:\/\/\S+);/.exec(served.message)![1];
      expect((await curl(['-x', url, `${origin.url}/x`])).stdout).toBe('recorded x');
      const until = Date.now() + 5000;
      let rows = await s.listExchanges();
      while (!rows.some((r) => r.path === '/x' && r.state === 'complete') && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 20));
        rows = await s.listExchanges();
      }
      expect((await s.getExchange({ id: rows.at(-1)!.id })).summary.status).toBe(200);

      // Starting the proxy again ends the replay: the network answers.
      const status = await s.startProxy();
      expect((await curl(['-x', status.address!.url, `${origin.url}/x`])).stdout).toBe('changed x!');
      await expect(s.replay({ id: info.id, mode: 'bogus' as 'serve' })).rejects.toMatchObject({ code: 'NL_API_BAD_REQUEST' });
      await expect(s.replay({ id: 'nope', mode: 'serve' })).rejects.toMatchObject({ code: 'NL_NOT_FOUND' });
    } finally {
      await s.close();
    }
  }, 30_000);
});
