/**
 * The session index (`sessions/index.json`): a small JSON list of sessions.
 *
 * Concurrent writers (the app, a CLI in another terminal, a lab run) must not
 * corrupt it or lose each other's changes:
 *  - every write goes to a temporary file that is renamed over the index, so a
 *    reader sees the old or the new index, never half of one;
 *  - read-modify-write cycles hold a lock directory (`mkdir` is atomic), so two
 *    updates cannot interleave. A lock older than STALE_LOCK_MS was left by a
 *    process that died mid-update and is broken.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCodes, NetlensError } from '../errors.js';

export type SessionSource = 'capture' | 'import' | 'lab';

export interface SessionRecord {
  id: string;
  name: string;
  /** ISO 8601. */
  createdAt: string;
  entryCount: number;
  source: SessionSource;
  /** Size of the HAR file (or of the journal while recording). */
  sizeBytes: number;
  /** `recording`: a journal is being written by process `pid`; `saved`: a HAR file. */
  state: 'recording' | 'saved';
  pid?: number;
  /** For imports: the file it came from. */
  origin?: string;
}

interface IndexFile {
  version: 1;
  sessions: SessionRecord[];
}

/** The index file exists but is not an index (edited by hand, disk trouble): it can be rebuilt. */
export class IndexDamagedError extends NetlensError {
  constructor(message: string) {
    super(ErrorCodes.SESSION_STORE, message);
  }
}

const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 15_000;

export class SessionIndex {
  readonly file: string;
  private readonly lockDir: string;

  constructor(readonly dir: string) {
    this.file = path.join(dir, 'index.json');
    this.lockDir = path.join(dir, 'index.lock');
  }

  async read(): Promise<SessionRecord[]> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new NetlensError(ErrorCodes.SESSION_STORE, `cannot read the session index ${this.file}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    try {
      const parsed = JSON.parse(text) as IndexFile;
      if (!Array.isArray(parsed.sessions)) throw new Error('no "sessions" array');
      return parsed.sessions;
    } catch (err) {
      throw new IndexDamagedError(
        `the session index ${this.file} is damaged (${(err as Error).message}). Move it aside; "netlens sessions list" rebuilds it from the HAR files.`,
      );
    }
  }

  /** Runs `change` on the current list under the lock and writes the result atomically. */
  async update<T>(change: (sessions: SessionRecord[]) => T | Promise<T>): Promise<T> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    await this.lock();
    try {
      const sessions = await this.read();
      const result = await change(sessions);
      await this.write(sessions);
      return result;
    } finally {
      await fs.rm(this.lockDir, { recursive: true, force: true });
    }
  }

  /** Replaces the whole list (used to rebuild a damaged index). */
  async replace(sessions: SessionRecord[]): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    await this.lock();
    try {
      await this.write(sessions);
    } finally {
      await fs.rm(this.lockDir, { recursive: true, force: true });
    }
  }

  private async write(sessions: SessionRecord[]): Promise<void> {
    const tmp = `${this.file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    const body: IndexFile = { version: 1, sessions };
    await fs.writeFile(tmp, JSON.stringify(body, null, 2) + '\n', { mode: 0o600 });
    await fs.rename(tmp, this.file);
  }

  private async lock(): Promise<void> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        await fs.mkdir(this.lockDir);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const stat = await fs.stat(this.lockDir).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > STALE_LOCK_MS) {
        await fs.rm(this.lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new NetlensError(
          ErrorCodes.SESSION_STORE,
          `the session index is locked by another Netlens process (${this.lockDir}); try again, or remove that directory if no Netlens is running.`,
        );
      }
      await sleep(Math.min(5 + attempt * 5, 50));
    }
  }
}
