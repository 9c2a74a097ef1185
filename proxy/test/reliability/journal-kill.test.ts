/**
 * Issue 13 item 12: `kill -9` of a recording proxy under mixed load (plain HTTP/1.1,
 * intercepted HTTP/1.1 and HTTP/2, GETs and POSTs) loses only the recorder's last
 * batch (FLUSH_DELAY_MS, at most FLUSH_MAX_PENDING exchanges): every exchange the client had fully received more than
 * WINDOW_MS before the kill is in the journal, with the body the origin served.
 * WINDOW_MS is generous (the machine is shared); the test prints the ages of the
 * exchanges that were lost, which is the measured window.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { journalEntries, scanJournal } from '../../src/har/journal.js';
import { FLUSH_MAX_PENDING } from '../../src/har/recorder.js';
import { loadOrCreateCA } from '../../src/tls/ca.js';
import { tempDataDir } from '../proxy/harness.js';
import { KINDS, LoadClient, sha1, startOrigins, type Answer } from './load.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WINDOW_MS = 500;
const CONCURRENCY = 24;
const LOAD_MS = Number(process.env.NETLENS_KILL_LOAD_MS ?? 2500);

interface Ready {
  ready: true;
  port: number;
  pid: number;
  journal: string;
}

function startChild(dataDir: string): Promise<{ child: ChildProcess; info: Ready }> {
  const child = fork(path.join(HERE, 'recording-child.ts'), [dataDir], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ child, info: m as Ready }));
    child.once('exit', (code) => reject(new Error(`recording child exited with ${code}`)));
  });
}

describe('kill -9 of a recording proxy under load', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it(`keeps every exchange answered more than ${WINDOW_MS} ms before the kill`, async () => {
    const dataDir = tempDataDir();
    const ca = loadOrCreateCA(dataDir);
    const origins = await startOrigins(ca);
    cleanups.push(() => origins.close());
    const { child, info } = await startChild(dataDir);
    cleanups.push(() => void child.kill('SIGKILL'));
    const client = new LoadClient(info.port, origins, ca.certPem);
    cleanups.push(() => client.close());

    const answers: Answer[] = [];
    let nextId = 1;
    let stopped = false;
    const worker = async () => {
      while (!stopped) {
        const id = nextId++;
        answers.push(await client.send(id, KINDS[id % KINDS.length]!));
      }
    };
    const workers = Array.from({ length: CONCURRENCY }, worker);
    await new Promise((r) => setTimeout(r, LOAD_MS));
    const exited = new Promise((r) => child.once('exit', r));
    const killAt = performance.timeOrigin + performance.now();
    child.kill('SIGKILL');
    await exited;
    stopped = true;
    await Promise.all(workers);

    const answered = answers.filter((a) => a.ok && a.doneAt <= killAt);
    expect(answered.length, 'load reached the proxy').toBeGreaterThan(50);
    expect(new Set(answered.map((a) => a.kind)).size).toBe(3);
    const scan = await scanJournal(info.journal);
    const journaled = new Map<number, string>();
    for await (const e of journalEntries(info.journal, scan)) {
      const id = Number(e.request.headers.find((h) => h.name.toLowerCase() === 'x-soak-id')?.value);
      if (e.response.status === 200) journaled.set(id, sha1(e.response.content.text ?? ''));
    }
    const lost = answered.filter((a) => !journaled.has(a.id));
    const ages = lost.map((a) => Math.round(killAt - a.doneAt)).sort((x, y) => x - y);
    console.log(
      `kill -9: ${answered.length} answered, ${journaled.size} journaled, ${lost.length} lost (ages before the kill, ms: ${ages.join(' ') || '-'})`,
    );
    expect(
      lost.filter((a) => killAt - a.doneAt > WINDOW_MS),
      'answered long before the kill but not journaled',
    ).toEqual([]);
    expect(lost.length).toBeLessThanOrEqual(FLUSH_MAX_PENDING + CONCURRENCY);
    // What was journaled is what the origin served, byte for byte.
    for (const a of answered.filter((x) => journaled.has(x.id)))
      expect(journaled.get(a.id), `id ${a.id}`).toBe(origins.served.byId.get(a.id)?.response);
  }, 120_000);
});
