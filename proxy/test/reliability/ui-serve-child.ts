/**
 * `netlens serve --no-proxy` as a child process for reliability tests: a crash
 * is seen as a crash (the process exits), not as a failed promise in the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ServeChild {
  port: number;
  token: string;
  pid: number;
  child: ChildProcess;
  /** Everything the child wrote to stdout and stderr. */
  output(): string;
  /** True while the process runs. */
  running(): boolean;
  /** Open file descriptors of the child (Linux /proc), or undefined elsewhere. */
  fds(): number | undefined;
  /** POST /api/<name> with the token; the HTTP status and parsed body. */
  call(
    name: string,
    args?: unknown,
  ): Promise<{ status: number; body: { ok: boolean; result?: unknown; error?: { code: string; message: string } } }>;
  stop(): Promise<void>;
}

export async function startServeChild(): Promise<ServeChild> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-ui-fuzz-'));
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin', 'netlens.js'), 'serve', '--no-proxy', '--port', '0', '--data-dir', dataDir],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NETLENS_DATA_DIR: dataDir },
    },
  );
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`netlens serve did not print its URL in 30 s:\n${out}`)), 30_000);
    const check = () => {
      const m = /Netlens UI: (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`netlens serve exited (${code ?? signal}) before printing its URL:\n${out}`));
    });
  });
  const u = new URL(url);
  const port = Number(u.port);
  const token = u.searchParams.get('token')!;
  const base = `http://127.0.0.1:${port}`;
  return {
    port,
    token,
    pid: child.pid!,
    child,
    output: () => out,
    running: () => child.exitCode === null && child.signalCode === null,
    fds: () => {
      try {
        return fs.readdirSync(`/proc/${child.pid}/fd`).length;
      } catch {
        return undefined;
      }
    },
    async call(name, args) {
      const res = await fetch(`${base}/api/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: args === undefined ? '' : JSON.stringify(args),
        signal: AbortSignal.timeout(10_000),
      });
      return { status: res.status, body: (await res.json()) as { ok: boolean } };
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
