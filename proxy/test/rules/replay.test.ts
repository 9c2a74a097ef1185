/** Server replay with rules: recorded requests are answered from the HAR; a rule mocks what the recording lacks. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startReplayServer } from '../../src/replay/server-replay.js';
import { loadReplayHar } from '../../src/replay/load.js';
import { curl, tempDataDir } from '../proxy/harness.js';
import { holderWith } from './rules-harness.js';

const entry = (url: string, text: string) => ({
  startedDateTime: new Date().toISOString(),
  time: 1,
  request: { method: 'GET', url, httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
  response: {
    status: 200,
    statusText: 'OK',
    httpVersion: 'HTTP/1.1',
    headers: [{ name: 'Content-Type', value: 'text/plain' }],
    cookies: [],
    content: { size: text.length, mimeType: 'text/plain', text },
    redirectURL: '',
    headersSize: -1,
    bodySize: text.length,
  },
  cache: {},
  timings: { send: 0, wait: 1, receive: 0 },
});

describe('replay --serve with rules', () => {
  it('answers recorded requests from the HAR and mocks the missing ones by rule', async () => {
    const dataDir = tempDataDir();
    const har = path.join(dataDir, 'page.har');
    fs.writeFileSync(
      har,
      JSON.stringify({
        log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [entry('http://site.test/recorded', 'from the HAR')] },
      }),
    );
    const { entries } = await loadReplayHar(har);
    const rules = holderWith([
      { id: 'missing', match: { host: 'site.test' }, actions: [{ type: 'mock', status: 200, body: 'from a rule' }] },
    ]);
    const { proxy } = await startReplayServer(entries, { extra: 'forward' }, { port: 0, dataDir, rules });
    try {
      expect((await curl(['-x', proxy.address.url, 'http://site.test/recorded'])).stdout).toBe('from the HAR');
      expect((await curl(['-x', proxy.address.url, 'http://site.test/never-recorded'])).stdout).toBe('from a rule');
    } finally {
      await proxy.stop();
    }
  });
});
