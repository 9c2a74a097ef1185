import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventStream } from '../../src/events.js';
import { exchangeToEntry } from '../../src/har/entry.js';
import { readHarFile } from '../../src/har/reader.js';
import { SessionStore } from '../../src/sessions/store.js';
import { makeExchange } from '../har/make-exchange.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.join(HERE, '../fixtures/har');

let dataDir: string;
let store: SessionStore;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-sessions-'));
  store = new SessionStore(dataDir);
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('SessionStore', () => {
  it('imports, lists, opens, renames, exports and deletes', async () => {
    const { info, warnings } = await store.importFile(path.join(FIXTURES, 'charles.har'));
    expect(info).toMatchObject({ name: 'charles', source: 'import', entryCount: 1, state: 'saved' });
    expect(warnings.length).toBeGreaterThan(0);
    expect((await store.list()).map((s) => s.id)).toEqual([info.id]);
    const opened = await store.open(info.id);
    expect(opened.har.log.entries[0].request.url).toBe('https://mitmproxy.org/?=');
    await store.rename(info.id, 'Charles capture');
    expect((await store.get('Charles capture')).id).toBe(info.id);
    const out = path.join(dataDir, 'exported.har');
    const written = await store.exportTo('Charles capture', out);
    expect(written.entries).toBe(1);
    // What Netlens stores (and exports) validates strictly: no warnings left.
    const reread = await readHarFile(out);
    expect(reread.warnings).toEqual([]);
    expect(reread.har!.log.entries[0].response.redirectURL).toBe('');
    expect(await store.delete(info.id)).toBe(true);
    expect(await store.list()).toEqual([]);
    expect(fs.readdirSync(store.dir).filter((f) => f.endsWith('.har'))).toEqual([]);
    expect(await store.delete(info.id)).toBe(false);
  });

  it('imports nothing from a broken file and names the bad field', async () => {
    await store.importFile(path.join(FIXTURES, 'insomnia.har'));
    const before = fs.readdirSync(store.dir).sort();
    const broken = path.join(dataDir, 'no-request.har');
    const har = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'chrome.har'), 'utf8'));
    delete har.log.entries[1].request;
    fs.writeFileSync(broken, JSON.stringify(har));
    await expect(store.importFile(broken)).rejects.toMatchObject({
      code: 'NL_HAR_INVALID',
      message: expect.stringContaining('log.entries[1].request: missing'),
    });
    await expect(store.importFile(path.join(FIXTURES, 'broken-truncated.har'))).rejects.toMatchObject({ code: 'NL_HAR_INVALID' });
    expect(fs.readdirSync(store.dir).sort()).toEqual(before);
    expect(await store.list()).toHaveLength(1);
  });

  it('keeps every session when many writers update the index at once', async () => {
    const text = fs.readFileSync(path.join(FIXTURES, 'insomnia.har'), 'utf8');
    // Separate store objects share nothing but the files, like separate processes.
    await Promise.all(Array.from({ length: 20 }, (_, i) => new SessionStore(dataDir).importText(text, { name: `s${i}` })));
    const index = JSON.parse(fs.readFileSync(path.join(store.dir, 'index.json'), 'utf8'));
    expect(index.sessions).toHaveLength(20);
    expect(new Set(index.sessions.map((s: { name: string }) => s.name)).size).toBe(20);
    expect(fs.readdirSync(store.dir).filter((f) => f.endsWith('.tmp') || f === 'index.lock')).toEqual([]);
  });

  it('records through the event stream and saves a HAR on stop', async () => {
    const events = new EventStream();
    const rec = await store.startRecording(events, { name: 'live' });
    expect((await store.get('live')).state).toBe('recording');
    for (let i = 0; i < 10; i++) events.emit({ type: 'complete', exchange: makeExchange() });
    // Readable while recording (assembled from the journal).
    expect((await store.open(rec.id)).har.log.entries).toHaveLength(10);
    const info = await rec.stop();
    expect(await rec.stop()).toEqual(info);
    expect(info).toMatchObject({ state: 'saved', entryCount: 10, source: 'capture' });
    expect(fs.existsSync(store.journalPath(rec.id))).toBe(false);
    const { har, warnings } = await readHarFile(store.harPath(rec.id));
    expect(warnings).toEqual([]);
    expect(har!.log.entries).toHaveLength(10);
  });

  it('saves entries streamed from an async iterable', async () => {
    async function* gen() {
      for (let i = 0; i < 3; i++) yield exchangeToEntry(makeExchange());
    }
    const info = await store.saveEntries(gen(), { name: 'lab run', source: 'lab' });
    expect(info).toMatchObject({ entryCount: 3, source: 'lab' });
    expect(info.sizeBytes).toBe(fs.statSync(store.harPath(info.id)).size);
  });

  it('rebuilds a damaged index from the files, keeping the damaged one aside', async () => {
    const { info } = await store.importFile(path.join(FIXTURES, 'insomnia.har'));
    fs.writeFileSync(path.join(store.dir, 'index.json'), '{"sessions": [ oops');
    const list = await store.list();
    expect(list.map((s) => [s.id, s.entryCount])).toEqual([[info.id, 1]]);
    expect(fs.readdirSync(store.dir).some((f) => f.startsWith('index.json.damaged-'))).toBe(true);
  });

  it('recovers a recording whose process was killed (kill -9)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'record-child.ts'), dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const lastCount = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child did not record in time: ${err}`)), 20_000);
      child.stdout.on('data', (d) => {
        out += d;
        const counts = out
          .split('\n')
          .filter((l) => /^\d+$/.test(l))
          .map(Number);
        const last = counts.at(-1) ?? 0;
        if (last >= 50) {
          clearTimeout(timer);
          child.kill('SIGKILL');
          resolve(last);
        }
      });
    });
    await new Promise((r) => child.once('exit', r));
    const [session] = await store.list();
    expect(session.state).toBe('recording');
    expect(store.isInterrupted(session)).toBe(true);
    const recovered = await store.recover();
    expect(recovered).toHaveLength(1);
    // Everything the child reported as recorded survived the kill.
    expect(recovered[0].entryCount).toBeGreaterThanOrEqual(lastCount);
    const { har, warnings } = await readHarFile(store.harPath(session.id));
    expect(warnings).toEqual([]);
    expect(har!.log.entries.length).toBe(recovered[0].entryCount);
    expect((await store.get(session.id)).state).toBe('saved');
  });
});

describe("storeBackend (the API's SessionBackend)", () => {
  it('persists sessions across backend instances and exports the stored HAR text', async () => {
    const { storeBackend } = await import('../../src/api/session-backend.js');
    const api = storeBackend(dataDir);
    expect(api.persistent).toBe(true);
    const text = fs.readFileSync(path.join(FIXTURES, 'postdata.har'), 'utf8');
    const info = await api.importHar('postdata.har', text);
    expect(info).toMatchObject({ name: 'postdata', entryCount: 1, source: 'import' });
    const saved = await api.saveCapture('live', [makeExchange(), makeExchange()]);
    expect(saved).toMatchObject({ entryCount: 2, source: 'capture' });
    // A second instance (another window, a restart) sees the same sessions.
    const again = storeBackend(dataDir);
    expect((await again.list()).map((s) => s.name).sort()).toEqual(['live', 'postdata']);
    const opened = await again.open(saved.id);
    expect(opened.log.entries).toHaveLength(2);
    const exported = await again.exportHar(saved.id);
    expect(exported.fileName).toBe('live.har');
    expect(JSON.parse(exported.text).log.entries).toHaveLength(2);
    await expect(again.importHar('bad.har', '{"log":{}}')).rejects.toMatchObject({
      code: 'NL_HAR_INVALID',
      message: expect.stringContaining('log.entries: missing'),
    });
    expect(await again.delete(info.id)).toBe(true);
    expect(await again.list()).toHaveLength(1);
    // Stored sessions are private to the user.
    expect(fs.statSync(store.harPath(saved.id)).mode & 0o077).toBe(0);
  });
});

describe('recover()', () => {
  it('saves a journal the index never heard of, under the name the journal carries', async () => {
    const { JournalWriter } = await import('../../src/har/journal.js');
    fs.mkdirSync(store.dir, { recursive: true });
    const j = JournalWriter.create(store.journalPath('20260101-000000-orph'), { created: '2026-01-01T00:00:00.000Z', name: 'orphan' });
    j.appendEntry(exchangeToEntry(makeExchange()));
    j.close();
    const [info] = await store.recover();
    expect(info).toMatchObject({
      id: '20260101-000000-orph',
      name: 'orphan',
      entryCount: 1,
      state: 'saved',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(fs.existsSync(store.journalPath(info.id))).toBe(false);
    expect(await store.recover()).toEqual([]);
  });
});
