/**
 * Launches Chrome with a fresh temporary profile and its DevTools endpoint on a
 * free port, and guarantees cleanup: `close()` kills the browser by PID (its
 * whole process group: renderers and the zygote too) and removes the profile,
 * also when the caller fails, is aborted, or the Node process exits.
 *
 * Why spawn directly instead of chrome-launcher's `launch()`: we need
 * `--remote-debugging-port=0` (no port race between parallel runs), our own
 * privacy flags without its defaults, and a cleanup we control per PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCodes, NetlensError } from '../errors.js';
import { chromeArgs, type ChromeFlagOptions } from './flags.js';
import { findChrome } from './find-chrome.js';
import { lowerPriority, type PriorityScope } from './priority.js';

export interface LaunchBrowserOptions extends Omit<ChromeFlagOptions, 'userDataDir'> {
  /** Executable; default findChrome(). */
  chromePath?: string;
  /** Give up when DevTools is not up after this long. Default 20 s. */
  startTimeoutMs?: number;
  /** Aborting kills the browser (during launch too). */
  signal?: AbortSignal;
  /** Run the browser at this lower CPU priority, 1–19 (priority.ts); default: the normal one. */
  niceness?: number;
}

export interface BrowserHandle {
  pid: number;
  /** DevTools HTTP/WebSocket port on 127.0.0.1. */
  port: number;
  /** `ws://127.0.0.1:PORT/devtools/browser/<id>`. */
  wsEndpoint: string;
  userDataDir: string;
  chromePath: string;
  args: string[];
  /** Resolves when the browser process exits (closed by the user, crashed, or close()). */
  exited: Promise<void>;
  /** With `niceness`: where the lower priority applied (priority.ts). */
  priority?: { niceness: number; scope: PriorityScope };
  /** Kills the browser (SIGTERM, then SIGKILL after a grace period) and removes the profile. Idempotent. */
  close(): Promise<void>;
}

/** Browsers still alive, killed synchronously if the process exits without closing them. */
const live = new Set<{ pid: number; dir: string }>();
let exitHookInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    // Negative PID: the process group we created with `detached: true` (Chrome's helpers included).
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Chrome's process-singleton directory names (`<TMPDIR>/org.chromium.Chromium.XXXXXX`, Google Chrome's likewise). */
const SINGLETON_DIR = /^(?:org\.chromium\.Chromium|com\.google\.Chrome)[\w.-]*\.\w{6}$/;

/**
 * The process-singleton directory of a profile, if Chrome made one. Chrome puts its SingletonSocket in a directory
 * of its own under TMPDIR and links it from the profile; it removes that directory on a clean shutdown only, so a
 * browser ended by a signal (every lab run's, every capture's) left one behind per launch: 342 in /tmp after a day
 * of labs and tests on this machine. Only a directory of that name directly under our temp directory is taken.
 */
function singletonDir(userDataDir: string): string | undefined {
  let socket: string;
  try {
    socket = fs.readlinkSync(path.join(userDataDir, 'SingletonSocket'));
  } catch {
    return undefined; // no link: Chrome did not get that far, or the profile is gone
  }
  const dir = path.dirname(socket);
  return path.dirname(dir) === path.resolve(os.tmpdir()) && SINGLETON_DIR.test(path.basename(dir)) ? dir : undefined;
}

/** Removes Chrome's singleton directory of a profile (a socket and a link: small enough to remove synchronously). */
function removeSingletonDir(userDataDir: string): void {
  const singleton = singletonDir(userDataDir);
  if (singleton) fs.rmSync(singleton, { recursive: true, force: true });
}

/** Removes a profile and Chrome's singleton directory beside it (synchronously: the exit hook and the sweep). */
function removeProfileSync(userDataDir: string): void {
  removeSingletonDir(userDataDir);
  fs.rmSync(userDataDir, { recursive: true, force: true, maxRetries: 2 });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const b of live) {
      killGroup(b.pid, 'SIGKILL');
      removeProfileSync(b.dir);
    }
  });
}

/**
 * Profile preferences no flag covers. `alternate_error_pages.enabled: false` turns
 * off captive-portal detection, which otherwise fetches
 * http://connectivitycheck.gstatic.com/generate_204 (through the proxy, when set)
 * whenever an HTTPS load takes over 30 s. Observed on Chromium 156.
 */
const PROFILE_PREFERENCES = { alternate_error_pages: { enabled: false } };

function writePreferences(userDataDir: string): void {
  fs.mkdirSync(path.join(userDataDir, 'Default'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'Default', 'Preferences'), JSON.stringify(PROFILE_PREFERENCES));
}

/** Profiles are `<tmp>/netlens-chrome-<pid of the Node process>-XXXXXX`. */
export const PROFILE_PREFIX = 'netlens-chrome-';

/**
 * Removes profiles left by Node processes that died without cleaning up (SIGKILL,
 * a test runner killing its worker). Their browsers exited with them (the pipe).
 */
function sweepStaleProfiles(): void {
  let names: string[];
  try {
    names = fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(PROFILE_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const owner = Number(/^netlens-chrome-(\d+)-/.exec(name)?.[1]);
    if (!owner || owner === process.pid) continue;
    try {
      process.kill(owner, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') removeProfileSync(path.join(os.tmpdir(), name));
    }
  }
}

const DEVTOOLS_LINE = /DevTools listening on (ws:\/\/[^\s]+)/;
const GRACE_MS = 2_000;

export async function launchBrowser(options: LaunchBrowserOptions = {}): Promise<BrowserHandle> {
  options.signal?.throwIfAborted();
  const chromePath = options.chromePath ?? findChrome();
  sweepStaleProfiles();
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${PROFILE_PREFIX}${process.pid}-`));
  writePreferences(userDataDir);
  const args = chromeArgs({ ...options, userDataDir });
  let child: ChildProcess;
  try {
    // fds 3/4: the DevTools pipe (--remote-debugging-pipe) that ties Chrome's life to ours.
    child = spawn(chromePath, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true });
  } catch (err) {
    fs.rmSync(userDataDir, { recursive: true, force: true });
    throw new NetlensError(ErrorCodes.BROWSER_LAUNCH, `Cannot start ${chromePath}: ${(err as Error).message}`, { cause: err });
  }
  const entry = { pid: child.pid ?? -1, dir: userDataDir };
  live.add(entry);
  installExitHook();
  let priority: BrowserHandle['priority'];
  let priorityError: Error | undefined;
  if (options.niceness && child.pid !== undefined) {
    try {
      priority = { niceness: options.niceness, scope: lowerPriority(child.pid, options.niceness) };
    } catch (err) {
      priorityError = err as Error;
    }
  }

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        killGroup(child.pid, 'SIGTERM');
        const timer = setTimeout(() => child.pid !== undefined && killGroup(child.pid, 'SIGKILL'), GRACE_MS);
        await exited;
        clearTimeout(timer);
        // Helpers that outlived the browser process (rare): make sure the group is gone.
        killGroup(child.pid, 'SIGKILL');
      }
      for (const stream of child.stdio) stream?.destroy();
      removeSingletonDir(userDataDir);
      // Chrome may still flush files while exiting: retry the removal a few times.
      await fs.promises.rm(userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      live.delete(entry);
    })());

  try {
    // Measuring with a priority the caller asked for and did not get would mislead: fail the launch.
    if (priorityError)
      throw new NetlensError(
        ErrorCodes.BROWSER_LAUNCH,
        `Cannot lower the browser's CPU priority: ${priorityError.message}. Run the lab with --browser-nice 0 to keep the normal priority.`,
        {
          cause: priorityError,
        },
      );
    const wsEndpoint = await waitForDevTools(child, userDataDir, options.startTimeoutMs ?? 20_000, options.signal);
    const port = Number(new URL(wsEndpoint).port);
    return { pid: child.pid!, port, wsEndpoint, userDataDir, chromePath, args, exited, close, ...(priority ? { priority } : {}) };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Resolves with the browser's DevTools WebSocket URL, read from the "DevTools
 * listening on" line on stderr (or, as a fallback, the DevToolsActivePort file
 * Chrome writes into the profile).
 */
function waitForDevTools(child: ChildProcess, userDataDir: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const done = (err: Error | null, ws?: string) => {
      clearTimeout(timer);
      clearInterval(poll);
      signal?.removeEventListener('abort', onAbort);
      child.stderr?.removeListener('data', onData);
      child.removeListener('exit', onExit);
      // Keep draining stderr so a chatty Chrome never blocks on a full pipe.
      child.stderr?.resume();
      if (err) reject(err);
      else resolve(ws!);
    };
    const onData = (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-8192);
      const m = DEVTOOLS_LINE.exec(stderr);
      if (m) done(null, m[1]);
    };
    const onExit = (code: number | null, sig: string | null) =>
      done(
        new NetlensError(
          ErrorCodes.BROWSER_LAUNCH,
          `Chrome exited before DevTools was ready (code ${code ?? sig}). Last output:\n${stderr.trim().split('\n').slice(-8).join('\n')}`,
        ),
      );
    const onAbort = () => done(new NetlensError(ErrorCodes.LAB_ABORTED, 'Cancelled while starting the browser'));
    const timer = setTimeout(
      () =>
        done(
          new NetlensError(
            ErrorCodes.BROWSER_LAUNCH,
            `Chrome did not open its DevTools port within ${timeoutMs} ms. Last output:\n${stderr.trim().slice(-1000)}`,
          ),
        ),
      timeoutMs,
    );
    const poll = setInterval(() => {
      try {
        const [port, wsPath] = fs.readFileSync(path.join(userDataDir, 'DevToolsActivePort'), 'utf8').trim().split('\n');
        if (port && wsPath) done(null, `ws://127.0.0.1:${port}${wsPath}`);
      } catch {
        // not written yet
      }
    }, 100);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', (err) => done(new NetlensError(ErrorCodes.BROWSER_LAUNCH, `Cannot start Chrome: ${err.message}`, { cause: err })));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
