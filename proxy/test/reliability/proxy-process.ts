/**
 * The proxy under test as a child process: a crash is seen as a crash (exit code,
 * signal, stderr), not as an exception inside the test runner.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { loadOrCreateCA, type CertificateAuthority } from '../../src/tls/ca.js';
import { tempDataDir } from '../proxy/harness.js';

export interface ProxyProcess {
  port: number;
  pid: number;
  ca: CertificateAuthority;
  /** null while running; otherwise how it ended. */
  exited(): { code: number | null; signal: string | null } | null;
  /** The child's stderr so far (warnings, stack traces). */
  stderr(): string;
  stop(): Promise<void>;
}

const entry = fileURLToPath(new URL('./proxy-child.ts', import.meta.url));

export async function spawnProxy(opts: { http2?: boolean } = {}): Promise<ProxyProcess> {
  const dataDir = tempDataDir();
  const args = ['--import', 'tsx', entry, dataDir, ...(opts.http2 === false ? ['--no-http2'] : [])];
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  let exit: { code: number | null; signal: string | null } | null = null;
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err = (err + c).slice(-200_000)));
  child.once('exit', (code, signal) => (exit = { code, signal }));
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`proxy child did not start in 30 s: ${err}`)), 30_000);
    lines.once('line', (l) => {
      clearTimeout(t);
      resolve(l);
    });
    child.once('exit', () => reject(new Error(`proxy child exited at start: ${err}`)));
  });
  const { port } = JSON.parse(first) as { port: number };
  return {
    port,
    pid: child.pid!,
    ca: loadOrCreateCA(dataDir),
    exited: () => exit,
    stderr: () => err,
    stop: async () => {
      if (!exit) {
        child.stdin!.end();
        await new Promise<void>((r) => {
          const t = setTimeout(() => {
            child.kill('SIGKILL');
            r();
          }, 5_000);
          child.once('exit', () => {
            clearTimeout(t);
            r();
          });
        });
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
