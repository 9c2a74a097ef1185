/**
 * Idle memory of `netlens proxy` as a user runs it: bin/netlens.js with the CLI bundle (built first, so it is
 * current and no TypeScript loader runs), RSS 1 s after it printed its address and 1 s after the same two check
 * requests every proxy in the bench gets (one plain HTTP, one intercepted HTTPS), and again once it has been idle
 * IDLE_SETTLE_S: a second after its first requests the heap still holds their garbage, which V8's memory reducer
 * collects (and returns to the system) some seconds into idleness (the CLI: 61.5 MB at 1-6 s, 58.6 MB from ~10 s on).
 * Issue 17 asks for <= 60 MB wherever Netlens controls the command line; the bench's own Netlens is a smaller
 * bundle (bench/peers/netlens.ts).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT_DIR } from '../lib/child.js';
import { curl } from '../lib/curl.js';
import { procMemory } from '../lib/proc.js';
import { buildCli } from './page-load.js';

export interface CliIdle {
  startedMiB: number;
  /** 1 s after the check requests. */
  afterChecksMiB: number;
  /** IDLE_SETTLE_S after the check requests, with no traffic in between. */
  settledMiB?: number;
}

/** How long after its check requests a proxy's memory counts as settled (V8's memory reducer ran by ~10 s here). */
export const IDLE_SETTLE_S = 20;

/** Resolves IDLE_SETTLE_S after `checkedAt` (Date.now() when the check requests were done). */
export const settledSince = (checkedAt: number) => new Promise((r) => setTimeout(r, checkedAt + IDLE_SETTLE_S * 1000 - Date.now()));

const settle = () => new Promise((r) => setTimeout(r, 1000));

export async function cliIdle(dataDir: string, caPath: string, origin: { httpPort: number; httpsPort: number }): Promise<CliIdle> {
  buildCli();
  const args = ['proxy', '--port', '0', '--data-dir', dataDir, '--upstream-ca', caPath, '--quiet'];
  const child = spawn(process.execPath, [path.join(ROOT_DIR, 'bin', 'netlens.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`netlens proxy did not print its address in 20 s: ${out.slice(0, 300)}`)), 20_000);
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      child.once('exit', (code) => reject(new Error(`netlens proxy exited (code ${code}): ${out.slice(0, 300)}`)));
    });
    await settle();
    const startedMiB = procMemory(child.pid!).rssMiB;
    const plain = await curl(['-x', `http://127.0.0.1:${port}`, `http://127.0.0.1:${origin.httpPort}/small`]);
    const tls = await curl(['-x', `http://127.0.0.1:${port}`, '--cacert', caPath, `https://localhost:${origin.httpsPort}/small`]);
    if (!plain.out.includes('netlens-bench') || !tls.out.includes('netlens-bench'))
      throw new Error(`netlens proxy: a check request failed: ${(plain.ok ? tls.out : plain.out).slice(0, 200)}`);
    const checked = Date.now();
    await settle();
    const afterChecksMiB = procMemory(child.pid!).rssMiB;
    await settledSince(checked);
    return { startedMiB, afterChecksMiB, settledMiB: procMemory(child.pid!).rssMiB };
  } finally {
    child.kill('SIGKILL');
  }
}
