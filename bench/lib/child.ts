/**
 * Every server and load generator the benchmark uses runs in its own child
 * process: the proxy under test never shares an event loop with the origin or
 * the client, and its CPU time and memory can be read from /proc by PID.
 * A child announces itself with one stdout line `READY {json}`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { procCpuMs, procMemory } from './proc.js';

export const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const ROOT_DIR = path.dirname(BENCH_DIR);

export interface Child<T = Record<string, unknown>> {
  pid: number;
  info: T;
  proc: ChildProcess;
  /** User+system CPU time of the process so far, in ms (from /proc/<pid>/stat). */
  cpuMs(): number;
  /** Current and peak resident set size, in MiB (from /proc/<pid>/status). */
  memory(): { rssMiB: number; hwmMiB: number };
  kill(): Promise<void>;
}

const live = new Set<ChildProcess>();
// A harness crash or Ctrl-C must not leave servers behind: kill what we started, by PID.
const killAll = () => {
  for (const p of live)
    if (p.pid)
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
};
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });

/** Runs a TypeScript file of the bench in plain node (tsx as a loader) so the PID is the server itself. */
export function tsArgs(file: string, args: string[] = []): [string, string[]] {
  return [process.execPath, ['--import', 'tsx', path.join(BENCH_DIR, file), ...args]];
}

/**
 * Runs a bench script (`file` under bench/, through tsx) to its end and resolves with the JSON of its
 * `RESULT {...}` line; rejects, naming `label` and the script's last lines of stderr, when it printed none.
 * Bounded: the script is killed (by its PID) past `timeoutMs`.
 */
export function scriptResult<T>(file: string, args: string[], label: string, timeoutMs: number): Promise<T> {
  const [cmd, argv] = tsArgs(file, args);
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { cwd: ROOT_DIR, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      const m = stdout.match(/^RESULT (.*)$/m);
      if (m) return resolve(JSON.parse(m[1]!) as T);
      reject(new Error(`${label} failed: ${err?.message ?? ''} ${stderr.trim().split('\n').slice(-3).join(' / ')}`));
    });
  });
}

/** scriptResult, or undefined with why logged: for a report's optional figures. */
export const scriptResultOrLog = <T>(file: string, args: string[], label: string, timeoutMs: number, log: (s: string) => void) =>
  scriptResult<T>(file, args, label, timeoutMs).catch((err: Error) => {
    log(err.message);
    return undefined;
  });

export function startChild<T = Record<string, unknown>>(
  label: string,
  command: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; readyTimeoutMs?: number; readyPattern?: RegExp; readyPort?: number } = {},
): Promise<Child<T>> {
  const proc = spawn(command, args, { cwd: ROOT_DIR, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => fail(new Error(`${label}: not ready after ${opts.readyTimeoutMs ?? 20000} ms`)),
      opts.readyTimeoutMs ?? 20_000,
    );
    const fail = (err: Error) => {
      clearTimeout(timer);
      if (proc.pid)
        try {
          process.kill(proc.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      reject(new Error(`${err.message}\n${stderr.trim().split('\n').slice(-8).join('\n')}`));
    };
    proc.once('exit', (code) => fail(new Error(`${label}: exited with ${code} before ready`)));
    proc.once('error', fail);
    if (opts.readyPort) {
      // Programs that do not print a ready line (mitmdump -q): poll the port.
      const poll = () => {
        const s = net.connect(opts.readyPort!, '127.0.0.1');
        s.once('connect', () => {
          s.destroy();
          clearTimeout(timer);
          proc.removeAllListeners('exit');
          proc.once('exit', () => live.delete(proc));
          proc.stdout!.resume();
          resolve(wrap(proc, { port: opts.readyPort } as T));
        });
        s.once('error', () => setTimeout(poll, 100));
      };
      poll();
      return;
    }
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = opts.readyPattern ? out.match(opts.readyPattern) : out.match(/^READY (.*)$/m);
      if (!m) return;
      clearTimeout(timer);
      proc.removeAllListeners('exit');
      proc.once('exit', () => live.delete(proc));
      proc.stdout!.removeAllListeners('data');
      proc.stdout!.resume();
      const info = (opts.readyPattern ? {} : JSON.parse(m[1]!)) as T;
      resolve(wrap(proc, info));
    });
  });
}

function wrap<T>(proc: ChildProcess, info: T): Child<T> {
  const pid = proc.pid!;
  return {
    pid,
    info,
    proc,
    cpuMs: () => procCpuMs(pid),
    memory: () => procMemory(pid),
    kill: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode) return resolve();
        const t = setTimeout(() => {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            /* gone */
          }
        }, 2000);
        proc.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          resolve();
        }
      }),
  };
}

/** Prints `READY {json}` once: the child's half of the protocol above. */
export function ready(info: Record<string, unknown>): void {
  process.stdout.write(`READY ${JSON.stringify(info)}\n`);
}

/** A free port on 127.0.0.1 for programs that cannot listen on port 0 and report it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
