/**
 * openLabSession: a lab run's proxy-side HAR becomes a session (source "lab") whose socket timeline
 * the Connections view can show; the same file twice is one session; paths outside the run, missing
 * files and broken HARs are refused with their codes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CoreService } from '../../src/api/core-service.js';
import { labSessionName } from '../../src/api/commands/sessions.js';
import { storeBackend } from '../../src/api/session-backend.js';
import { invoke } from '../../src/api/invoke.js';
import { tempDataDir } from '../proxy/harness.js';
import { fakeBackends } from './fake-backends.js';

const RUN = '2026-11-25T22-00-00-000Z';
const FILE = 'har/0004-proxy+h2+intercept.proxy.har';

/** A proxy-side HAR as the lab writes it: two entries on one client connection, with the timeline. */
function labHar() {
  const entry = (i: number) => ({
    startedDateTime: new Date(1_700_000_000_000 + i * 10).toISOString(),
    time: 5,
    request: {
      method: 'GET',
      url: `https://127.0.0.1:4443/img/${i}.png`,
      httpVersion: 'h2',
      headers: [],
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'h2',
      headers: [],
      cookies: [],
      content: { size: 115, mimeType: 'image/png' },
      redirectURL: '',
      headersSize: -1,
      bodySize: 115,
    },
    cache: {},
    timings: { blocked: 0, dns: -1, connect: -1, ssl: -1, send: 0, wait: 4, receive: 1 },
    _exchangeId: `x${i + 1}`,
    _connectionId: 'c1',
    _clientConnection: 'c1',
  });
  return {
    log: {
      version: '1.2',
      creator: { name: 'netlens', version: '0.1.0' },
      pages: [],
      entries: [entry(0), entry(1)],
      _connections: [
        {
          id: 'c1',
          leg: 'client',
          opened: 100,
          events: [
            { t: 101, d: 'r', n: 80, x: 'x1' },
            { t: 105, d: 'w', n: 200, x: 'x1' },
            { t: 111, d: 'r', n: 80, x: 'x2' },
            { t: 115, d: 'w', n: 200, x: 'x2' },
          ],
        },
      ],
      _connectionsDropped: 0,
      _connectionsTimeOrigin: 1_700_000_000_000,
    },
  };
}

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function service() {
  const dir = tempDataDir();
  dirs.push(dir);
  const runDir = path.join(dir, 'lab', RUN);
  fs.mkdirSync(path.join(runDir, 'har'), { recursive: true });
  fs.writeFileSync(path.join(runDir, FILE), JSON.stringify(labHar()));
  fs.writeFileSync(path.join(runDir, 'har', 'broken.proxy.har'), '{"log": {"entries": [');
  const s = new CoreService({ ...fakeBackends(), dataDir: dir, sessions: storeBackend(dir) });
  return s;
}

describe('openLabSession', () => {
  it('names the session after the run, the cell and the side', () => {
    expect(labSessionName('r1', 'har/0004-proxy+h2+intercept.proxy.har')).toBe('lab r1 · 0004 proxy+h2+intercept (proxy side)');
    expect(labSessionName('r1', 'other.har')).toBe('lab r1 · other');
  });

  it("stores a lab run's proxy HAR as a session once, with its socket timeline", async () => {
    const s = service();
    try {
      const events: string[] = [];
      s.subscribe((e) => events.push(e.type));
      const info = await s.openLabSession({ runId: RUN, file: FILE });
      expect(info).toMatchObject({ source: 'lab', entryCount: 2, name: `lab ${RUN} · 0004 proxy+h2+intercept (proxy side)` });
      expect(events).toContain('sessions-changed');
      const again = await s.openLabSession({ runId: RUN, file: FILE });
      expect(again.id).toBe(info.id);
      expect((await s.listSessions()).filter((x) => x.source === 'lab')).toHaveLength(1);
      const lanes = await s.getConnections({ sessionId: info.id });
      expect(lanes.connections.map((c) => c.id)).toEqual(['c1']);
      expect(lanes.connections[0]!.exchanges.map((x) => x.id)).toEqual(['h0', 'h1']);
    } finally {
      await s.close();
    }
  });

  it('refuses paths outside the run, missing files and broken HARs', async () => {
    const s = service();
    try {
      const call = (args: unknown) => invoke(s, 'openLabSession', args, { where: 'test' });
      expect(await call({ runId: RUN, file: '../../sessions/x.har' })).toMatchObject({ ok: false, error: { code: 'NL_API_BAD_REQUEST' } });
      expect(await call({ runId: '../x', file: FILE })).toMatchObject({ ok: false, error: { code: 'NL_API_BAD_REQUEST' } });
      expect(await call({ runId: RUN })).toMatchObject({ ok: false, error: { code: 'NL_API_BAD_REQUEST' } });
      expect(await call({ runId: RUN, file: 'har/none.proxy.har' })).toMatchObject({ ok: false, error: { code: 'NL_NOT_FOUND' } });
      expect(await call({ runId: RUN, file: 'har' })).toMatchObject({ ok: false, error: { code: 'NL_NOT_FOUND' } });
      expect(await call({ runId: RUN, file: 'har/broken.proxy.har' })).toMatchObject({ ok: false, error: { code: 'NL_HAR_INVALID' } });
      expect(await s.listSessions()).toHaveLength(0);
    } finally {
      await s.close();
    }
  });
});
