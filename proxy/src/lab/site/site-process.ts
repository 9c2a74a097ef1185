/**
 * Runs the test site in its own Node process.
 *
 * Why: in the lab, the proxy runs inside the lab's process. If the origin shared
 * that event loop, every proxy cell would also pay for the origin's TLS and
 * small writes queued behind the proxy's work (and the reverse), a cost no
 * real deployment has and direct cells do not pay. A separate process gives the
 * origin its own event loop, as a real server would have.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ErrorCodes, NetlensError } from '../../errors.js';
import type { TestSiteOptions, TestSiteStats } from './test-site.js';

export interface TestSiteProcess {
  url: string;
  port: number;
  images: number;
  latencyMs: number;
  connectionLatencyMs: number;
  expectedRequests: number;
  pid: number;
  /** Stops the site and its process; resolves with what it served. Idempotent. */
  close(): Promise<TestSiteStats | undefined>;
}

const START_TIMEOUT_MS = 20_000;

export async function startTestSiteProcess(options: Omit<TestSiteOptions, 'ca'> & { dataDir: string }): Promise<TestSiteProcess> {
  const entry = new URL('./site-child' + (import.meta.url.endsWith('.ts') ? '.ts' : '.js'), import.meta.url);
  // Running from TypeScript sources (tsx, vitest): the child needs the same loader.
  const execArgv = import.meta.url.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child: ChildProcess = fork(fileURLToPath(entry), [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const started = await new Promise<{ url: string; port: number; images: number; latencyMs: number; connectionLatencyMs: number; expectedRequests: number }>(
    (resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new NetlensError(ErrorCodes.INTERNAL, `The test site process did not start within ${START_TIMEOUT_MS} ms`));
      }, START_TIMEOUT_MS);
      child.on('message', (m: { type: string; site?: never; code?: string; message?: string }) => {
        if (m.type === 'started') {
          clearTimeout(timer);
          resolve(m.site!);
        } else if (m.type === 'error') {
          clearTimeout(timer);
          reject(new NetlensError(m.code ?? ErrorCodes.INTERNAL, `The test site could not start: ${m.message}`));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new NetlensError(ErrorCodes.INTERNAL, `The test site process exited during start (code ${code})`));
      });
      child.send({ type: 'start', options });
    },
  );

  let closing: Promise<TestSiteStats | undefined> | undefined;
  const close = () =>
    (closing ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const stats = new Promise<TestSiteStats | undefined>((resolve) => {
        child.on('message', (m: { type: string; stats?: TestSiteStats }) => m.type === 'closed' && resolve(m.stats));
        void exited.then(() => resolve(undefined));
      });
      child.send({ type: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      const result = await stats;
      await exited;
      clearTimeout(timer);
      return result;
    })());
  return { ...started, pid: child.pid!, close };
}
