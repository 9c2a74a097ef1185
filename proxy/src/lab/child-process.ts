/**
 * A lab helper in its own Node process (the test site, the proxy under test),
 * driven over IPC with one small protocol:
 *   parent → {type:'start', options}     child → {type:'started', info} | {type:'error', code, message}
 *   parent → {type:'close'}              child → {type:'closed', result}, then exits
 *   parent → {type:X, options}           child → {type:'X:done', result} | {type:'X:error', code, message}
 *                                        (further calls a child offers, e.g. one proxy per lab run)
 * The child exits when the parent goes away (IPC disconnect), so it never
 * outlives the lab; a child that does not close in time is killed by PID.
 * The child gets the parent's app paths (app-paths.ts) as its one argument and sets
 * them in serveLabChild, so it finds the same files and reports the same version.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { appPaths, setAppPaths, type AppPaths, type LabChildEntry } from '../app-paths.js';
import { ErrorCodes, NetlensError, errorCodeOf } from '../errors.js';

export interface LabChild<Info, Result> {
  info: Info;
  pid: number;
  /** Asks the child to finish; resolves with its result (undefined if it died). Idempotent. */
  close(): Promise<Result | undefined>;
  /** Runs one of the child's further calls; rejects with its error (code kept) or if the child died. */
  call<T>(type: string, options?: unknown): Promise<T>;
}

const START_TIMEOUT_MS = 20_000;
const CLOSE_TIMEOUT_MS = 5_000;

/**
 * `entry` is one of appPaths().labChildren: a bundle next to the parent's, or a TypeScript source run with tsx.
 * `nodeFlags` go on the child's command line after the entry's own (e.g. the proxy child's V8 flag).
 */
export async function startLabChild<Info, Result>(
  what: string,
  entry: LabChildEntry,
  options: unknown,
  nodeFlags: string[] = [],
): Promise<LabChild<Info, Result>> {
  const child: ChildProcess = fork(entry.file, [JSON.stringify(appPaths())], {
    execArgv: [...entry.execArgv, ...nodeFlags],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const info = await new Promise<Info>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new NetlensError(ErrorCodes.INTERNAL, `The ${what} process did not start within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    child.on('message', (m: { type: string; info?: Info; code?: string; message?: string }) => {
      if (m.type === 'started') {
        clearTimeout(timer);
        resolve(m.info!);
      } else if (m.type === 'error') {
        clearTimeout(timer);
        reject(new NetlensError(errorCodeOf(m), `The ${what} could not start: ${m.message}`));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new NetlensError(ErrorCodes.INTERNAL, `The ${what} process exited during start (code ${code})`));
    });
    child.send({ type: 'start', options });
  });

  let closing: Promise<Result | undefined> | undefined;
  const close = () =>
    (closing ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const result = new Promise<Result | undefined>((resolve) => {
        child.on('message', (m: { type: string; result?: Result }) => m.type === 'closed' && resolve(m.result));
        void exited.then(() => resolve(undefined));
      });
      child.send({ type: 'close' });
      const timer = setTimeout(() => {
        process.emitWarning(`The ${what} process (pid ${child.pid}) did not close within ${CLOSE_TIMEOUT_MS} ms; killed`, {
          code: ErrorCodes.LAB_CHILD_KILLED,
        });
        child.kill('SIGKILL');
      }, CLOSE_TIMEOUT_MS);
      const r = await result;
      await exited;
      clearTimeout(timer);
      return r;
    })());
  const call = <T>(type: string, options?: unknown) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: { type: string; result?: T; code?: string; message?: string }) => {
        if (m.type !== `${type}:done` && m.type !== `${type}:error`) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (m.type === `${type}:done`) resolve(m.result as T);
        else reject(new NetlensError(errorCodeOf(m), m.message ?? `The ${what} failed (${type})`));
      };
      const onExit = (code: number | null) => {
        child.off('message', onMessage);
        reject(new NetlensError(ErrorCodes.INTERNAL, `The ${what} process exited (code ${code}) during ${type}`));
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ type, options });
    });
  return { info, pid: child.pid!, close, call };
}

/**
 * The child side: runs `start` on 'start' and `close` on 'close', reporting over
 * IPC; `calls` answers further message types without ending the process.
 */
export function serveLabChild<Options, Info, Result>(
  start: (options: Options) => Promise<Info>,
  close: () => Promise<Result>,
  calls: Record<string, (options: never) => Promise<unknown>> = {},
): void {
  // This process's entry point: the parent passed its app paths (startLabChild).
  if (process.argv[2]) setAppPaths(JSON.parse(process.argv[2]) as AppPaths);
  process.on('disconnect', () => process.exit(0));
  process.on('message', (msg: { type: string; options: Options }) => {
    void (async () => {
      const handler = calls[msg.type];
      if (handler) {
        try {
          process.send?.({ type: `${msg.type}:done`, result: await handler(msg.options as never) });
        } catch (err) {
          const e = err as Error & { code?: string };
          process.send?.({ type: `${msg.type}:error`, code: e.code, message: e.message });
        }
        return;
      }
      try {
        if (msg.type === 'start') process.send?.({ type: 'started', info: await start(msg.options) });
        else if (msg.type === 'close') process.send?.({ type: 'closed', result: await close() }, () => process.exit(0));
      } catch (err) {
        const e = err as Error & { code?: string };
        process.send?.({ type: 'error', code: e.code, message: e.message }, () => process.exit(1));
      }
    })();
  });
}
