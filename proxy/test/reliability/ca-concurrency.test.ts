/**
 * Issue 13 item 13: processes starting at once on an empty data directory converge
 * on one CA, and a creator killed half-way never leaves a CA whose key and
 * certificate do not match. 8 long-lived workers (ca-worker.ts) race on
 * directories 1..N in lockstep; NETLENS_CA_TRIALS=N runs more (default 100),
 * NETLENS_CA_REAL_TRIALS=N races the real RSA-generating loadOrCreateCA (default 3).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateCA } from '../../src/tls/ca.js';
import { tempDataDir } from '../proxy/harness.js';

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ca-worker.ts');
const PROCESSES = 8;
const TRIALS = Number(process.env.NETLENS_CA_TRIALS ?? 100);
const REAL_TRIALS = Number(process.env.NETLENS_CA_REAL_TRIALS ?? 3);
const KILLS = 8;

interface Worker {
  child: ChildProcessWithoutNullStreams;
  next(): Promise<{ fingerprint?: string; leaf?: string; error?: string; ready?: boolean }>;
}

function startWorker(): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else lines.push(line);
  });
  child.stderr.on('data', (d) => process.stderr.write(d));
  return {
    child,
    next: () =>
      new Promise((resolve) => {
        const line = lines.shift();
        if (line !== undefined) resolve(JSON.parse(line));
        else waiting.push((l) => resolve(JSON.parse(l)));
      }),
  };
}

function leftovers(dataDir: string): string[] {
  return fs.readdirSync(dataDir).filter((n) => n !== 'ca');
}

describe('CA creation across processes', () => {
  let workers: Worker[] = [];
  const root = tempDataDir();

  beforeAll(async () => {
    workers = Array.from({ length: PROCESSES }, startWorker);
    for (const w of workers) expect(await w.next()).toEqual({ ready: true });
  }, 120_000);

  afterAll(() => {
    for (const w of workers) w.child.kill('SIGKILL');
  });

  async function race(mode: 'fast' | 'real', dataDir: string): Promise<void> {
    for (const w of workers) w.child.stdin.write(`${mode} ${dataDir}\n`);
    const answers = await Promise.all(workers.map((w) => w.next()));
    expect(
      answers.filter((a) => a.error),
      dataDir,
    ).toEqual([]);
    const fingerprints = new Set(answers.map((a) => a.fingerprint));
    const leaves = new Set(answers.map((a) => a.leaf));
    expect(fingerprints.size, `${dataDir}: ${[...fingerprints].join(' ')}`).toBe(1);
    expect(leaves.size, `${dataDir}: leaf keys ${[...leaves].join(' ')}`).toBe(1);
    // What is on disk is that one CA, with a key that matches it (makeAuthority checks).
    const onDisk = loadOrCreateCA(dataDir);
    expect(onDisk.fingerprint).toBe([...fingerprints][0]);
    expect(onDisk.leafSpkiHash).toBe([...leaves][0]);
    expect(leftovers(dataDir), 'temporary directories left behind').toEqual([]);
  }

  it(`${PROCESSES} processes on an empty directory create one CA (${TRIALS} trials)`, async () => {
    for (let i = 1; i <= TRIALS; i++) await race('fast', path.join(root, `fast-${i}`));
  }, 300_000);

  it(`the same with real key generation (${REAL_TRIALS} trials)`, async () => {
    for (let i = 1; i <= REAL_TRIALS; i++) await race('real', path.join(root, `real-${i}`));
  }, 300_000);

  it('an empty ca/ directory (an older version killed while generating) is filled, once', async () => {
    const dataDir = path.join(root, 'empty-ca');
    fs.mkdirSync(path.join(dataDir, 'ca'), { recursive: true });
    await race('fast', dataDir);
  }, 60_000);

  it('a CA from an older version without the shared leaf key gets one leaf key, whoever creates it', async () => {
    for (let i = 1; i <= 4; i++) {
      const dataDir = path.join(root, `leaf-${i}`);
      const ca = loadOrCreateCA(dataDir);
      fs.rmSync(path.join(dataDir, 'ca', 'leaf.key'));
      await race('fast', dataDir);
      expect(loadOrCreateCA(dataDir).fingerprint).toBe(ca.fingerprint);
      expect(fs.readdirSync(path.join(dataDir, 'ca')).sort()).toEqual(['leaf.key', 'netlens-ca.key', 'netlens-ca.pem']);
    }
  }, 120_000);

  it('a creator killed at any point leaves either no CA or a whole one, and its temporary files are removed', async () => {
    const killer = startWorker();
    expect(await killer.next()).toEqual({ ready: true });
    let created = 0;
    const dataDir = path.join(root, 'killed');
    for (let i = 0; i < KILLS; i++) {
      const dir = `${dataDir}-${i}`;
      const victim = i === 0 ? killer : startWorker();
      if (i > 0) expect(await victim.next()).toEqual({ ready: true });
      const exited = new Promise((r) => victim.child.once('exit', r));
      victim.child.stdin.write(`real ${dir}\n`);
      if (i % 2 === 0) {
        // Two RSA keys take ~50-400 ms here (more on a busy machine): kills land before, during and after publishing.
        await new Promise((r) => setTimeout(r, (i * 400) / KILLS));
      } else {
        // Right at publishing: the certificate is the last file written before the rename.
        const deadline = Date.now() + 20_000;
        const publishing = () =>
          fs.existsSync(path.join(dir, 'ca')) ||
          (fs.existsSync(dir) &&
            fs.readdirSync(dir).some((n) => n.startsWith('.ca-new-') && fs.existsSync(path.join(dir, n, 'netlens-ca.pem'))));
        while (!publishing() && Date.now() < deadline) await new Promise((r) => setImmediate(r));
      }
      victim.child.kill('SIGKILL');
      await exited;
      if (fs.existsSync(path.join(dir, 'ca'))) created++;
      const ca = loadOrCreateCA(dir, { warn: () => {} });
      expect(new crypto.X509Certificate(ca.certPem).checkPrivateKey(crypto.createPrivateKey(fs.readFileSync(ca.keyPath)))).toBe(true);
      expect(leftovers(dir), `${dir}: temporary directory of the killed creator`).toEqual([]);
    }
    console.log(`kill during creation: ${created}/${KILLS} kills came after the CA was published`);
  }, 300_000);
});
