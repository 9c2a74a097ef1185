/**
 * The session store: saved sessions in the data directory.
 *
 *   <dataDir>/sessions/index.json        the index (see index-file.ts)
 *   <dataDir>/sessions/<id>.har          one HAR 1.2 file per session
 *   <dataDir>/sessions/<id>.journal      a recording in progress (or interrupted)
 *
 * A recording appends to its journal as exchanges complete; stopping it
 * assembles the HAR (streaming) and removes the journal. A recording whose
 * process died (crash, kill -9) leaves its journal behind; `recover()` turns it
 * into a saved session with everything that had completed.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ErrorCodes, NetlensError } from '../errors.js';
import type { EventStream } from '../events.js';
import { exportJournal, scanJournal, journalEntries, JournalWriter } from '../har/journal.js';
import { dropPageref, formatIssue, parseHar, readHarFile, type HarIssue } from '../har/reader.js';
import { scanHarFile } from '../har/stream-reader.js';
import { HarRecorder } from '../har/recorder.js';
import type { Har, HarEntry, HarHead } from '../har/types.js';
import type { Timeline } from '../timeline/recorder.js';
import { NETLENS_CREATOR, writeHar, type PiecesEntry, type WriteResult } from '../har/writer.js';
import { uniqueName } from './unique-name.js';
import { IndexDamagedError, SessionIndex, type SessionRecord, type SessionSource } from './index-file.js';

export type { SessionRecord, SessionSource } from './index-file.js';

export interface ImportResult {
  info: SessionRecord;
  /** The name asked for, when another session had it and `info.name` got a " (2)" suffix. */
  requestedName?: string;
  /** Deviations from HAR 1.2 that were read anyway (see har/reader.ts). */
  warnings: HarIssue[];
}

export interface Recording {
  readonly id: string;
  readonly recorder: HarRecorder;
  /** Stops recording and saves the HAR. Idempotent. */
  stop(): Promise<SessionRecord>;
}

function invalidHar(source: string, errors: HarIssue[]): NetlensError {
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return new NetlensError(
    ErrorCodes.HAR_INVALID,
    `${source} cannot be imported: ${first.path ? `${first.path}: ` : ''}${first.message}${more}. Nothing was imported.`,
  );
}

function newId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

function pidAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class SessionStore {
  readonly dir: string;
  private readonly index: SessionIndex;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'sessions');
    this.index = new SessionIndex(this.dir);
  }

  harPath(id: string): string {
    return path.join(this.dir, `${id}.har`);
  }

  journalPath(id: string): string {
    return path.join(this.dir, `${id}.journal`);
  }

  /** Sessions, newest first. A damaged index is moved aside and rebuilt from the files. */
  async list(): Promise<SessionRecord[]> {
    let sessions: SessionRecord[];
    try {
      sessions = await this.index.read();
    } catch (err) {
      if (!(err instanceof IndexDamagedError)) throw err;
      sessions = await this.rebuildIndex();
    }
    return [...sessions].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** A session by id, or by name when exactly one session has it. */
  async get(idOrName: string): Promise<SessionRecord> {
    const sessions = await this.list();
    const byId = sessions.find((s) => s.id === idOrName);
    if (byId) return byId;
    const byName = sessions.filter((s) => s.name === idOrName);
    if (byName.length === 1) return byName[0];
    if (byName.length > 1) {
      throw new NetlensError(
        ErrorCodes.NOT_FOUND,
        `${byName.length} sessions are named "${idOrName}"; use an id (${byName.map((s) => s.id).join(', ')}).`,
      );
    }
    throw new NetlensError(ErrorCodes.NOT_FOUND, `No session "${idOrName}". "netlens sessions list" shows the sessions there are.`);
  }

  /** Whether a recording session's process is gone (its journal is waiting for recover()). */
  isInterrupted(s: SessionRecord): boolean {
    return s.state === 'recording' && !pidAlive(s.pid);
  }

  /** The session's HAR (assembled from the journal while it is recording). */
  async open(idOrName: string): Promise<{ info: SessionRecord; har: Har }> {
    const info = await this.get(idOrName);
    if (info.state === 'recording') {
      const scan = await scanJournal(this.journalPath(info.id));
      const entries: HarEntry[] = [];
      for await (const e of journalEntries(this.journalPath(info.id), scan)) entries.push(e);
      return {
        info: { ...info, entryCount: entries.length },
        har: { log: { version: '1.2', creator: scan.meta?.creator ?? NETLENS_CREATOR, pages: scan.pages, entries } },
      };
    }
    const result = await readHarFile(this.harPath(info.id));
    if (!result.har) {
      throw new NetlensError(
        ErrorCodes.SESSION_STORE,
        `session "${info.name}" (${this.harPath(info.id)}) cannot be read: ${result.errors.map((e) => formatIssue('error', e)).join('; ')}`,
      );
    }
    return { info, har: result.har };
  }

  async rename(idOrName: string, name: string): Promise<SessionRecord> {
    const { id } = await this.get(idOrName);
    if (!name.trim()) throw new NetlensError(ErrorCodes.USAGE, 'a session name cannot be empty');
    return this.index.update((sessions) => {
      const s = sessions.find((x) => x.id === id);
      if (!s) throw new NetlensError(ErrorCodes.NOT_FOUND, `No session "${id}" (it was deleted meanwhile).`);
      const clash = sessions.find((x) => x.id !== id && x.name === name.trim());
      if (clash) {
        throw new NetlensError(
          ErrorCodes.SESSION_NAME_TAKEN,
          `Session ${clash.id} is already named "${name.trim()}"; names are unique, choose another one.`,
        );
      }
      s.name = name.trim();
      return { ...s };
    });
  }

  /**
   * Imports a HAR file, streaming (bounded memory whatever its size): entries
   * are checked and normalized one by one into a spool file, then written as
   * the session's HAR. Nothing is stored when it has errors (NL_HAR_INVALID
   * names the first bad field).
   */
  async importFile(file: string, options: { name?: string; source?: SessionSource } = {}): Promise<ImportResult> {
    const name = options.name ?? path.basename(file).replace(/\.har$/i, '');
    const origin = path.resolve(file);
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    // Not ".journal": recover() must not mistake a crashed import for a recording.
    const spool = path.join(this.dir, `.import-${newId()}.spool`);
    const journal = JournalWriter.create(spool, { created: new Date().toISOString() });
    try {
      const scan = await scanHarFile(file, (entry) => journal.appendEntry(entry));
      journal.close();
      if (!scan.log) throw invalidHar(origin, scan.errors);
      const { version: _v, creator, browser, pages, entries: _none, comment, ...extra } = scan.log;
      const spooled = await scanJournal(spool);
      const dangling = scan.danglingPagerefs;
      async function* entries() {
        for await (const e of journalEntries(spool, spooled, undefined, 'written')) {
          if (typeof e.pageref === 'string' && dangling.has(e.pageref)) dropPageref(e, e.pageref);
          yield e;
        }
      }
      const info = await this.saveEntries(entries(), {
        name,
        source: options.source ?? 'import',
        origin,
        head: { creator, browser, pages: pages ?? [], comment, extra },
      });
      return { info, warnings: scan.warnings, ...(info.name !== name ? { requestedName: name } : {}) };
    } finally {
      journal.close();
      await fs.rm(spool, { force: true });
    }
  }

  async importText(text: string, options: { name: string; source?: SessionSource; origin?: string }): Promise<ImportResult> {
    return this.importParsed(parseHar(text), { name: options.name, source: options.source ?? 'import', origin: options.origin });
  }

  private async importParsed(
    result: ReturnType<typeof parseHar>,
    meta: { name: string; source: SessionSource; origin?: string },
  ): Promise<ImportResult> {
    if (!result.har) throw invalidHar(meta.origin ?? meta.name, result.errors);
    const { log } = result.har;
    const { version: _v, creator, browser, pages, entries, comment, ...extra } = log;
    const info = await this.saveEntries(entries, {
      name: meta.name,
      source: meta.source,
      origin: meta.origin,
      head: { creator, browser, pages: pages ?? [], comment, extra },
    });
    return { info, warnings: result.warnings, ...(info.name !== meta.name ? { requestedName: meta.name } : {}) };
  }

  /** Stores entries as a new session (streaming: entries may be an async iterable). */
  async saveEntries(
    entries: Iterable<HarEntry | PiecesEntry> | AsyncIterable<HarEntry | PiecesEntry>,
    options: { name: string; source: SessionSource; origin?: string; head?: Partial<HarHead> },
  ): Promise<SessionRecord> {
    const id = newId();
    const head: HarHead = { creator: NETLENS_CREATOR, pages: [], ...options.head };
    const written = await this.writeStored(id, head, entries);
    const info: SessionRecord = {
      id,
      name: options.name,
      createdAt: new Date().toISOString(),
      entryCount: written.entries,
      source: options.source,
      sizeBytes: written.bytes,
      state: 'saved',
      ...(options.origin ? { origin: options.origin } : {}),
    };
    await this.index.update((sessions) => {
      // Chosen under the index lock: two imports at once cannot both take the free name.
      info.name = uniqueName(
        options.name,
        sessions.map((s) => s.name),
      );
      sessions.push(info);
    });
    return info;
  }

  private async writeStored(
    id: string,
    head: HarHead,
    entries: Iterable<HarEntry | PiecesEntry> | AsyncIterable<HarEntry | PiecesEntry>,
  ): Promise<WriteResult> {
    try {
      // Sessions hold cookies and tokens: readable by the user only, like the CA key.
      return await writeHar(this.harPath(id), head, entries, { mode: 0o600 });
    } catch (err) {
      throw new NetlensError(ErrorCodes.SESSION_STORE, `cannot write ${this.harPath(id)}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Writes the session's HAR to `file` (streamed: bounded memory whatever the session's size). */
  async exportTo(idOrName: string, file: string): Promise<WriteResult> {
    const info = await this.get(idOrName);
    if (info.state === 'recording') {
      const r = await exportJournal(this.journalPath(info.id), file);
      return { entries: r.entries, bytes: r.bytes };
    }
    // A stored HAR is already what we would write: copy the bytes (atomically: temp + rename).
    const tmp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.tmp`);
    await fs.copyFile(this.harPath(info.id), tmp);
    await fs.rename(tmp, file);
    const { size } = await fs.stat(file);
    return { entries: info.entryCount, bytes: size };
  }

  async delete(idOrName: string): Promise<boolean> {
    let info: SessionRecord;
    try {
      info = await this.get(idOrName);
    } catch (err) {
      if ((err as NetlensError).code === ErrorCodes.NOT_FOUND) return false;
      throw err;
    }
    if (info.state === 'recording' && !this.isInterrupted(info)) {
      throw new NetlensError(
        ErrorCodes.SESSION_STORE,
        `session "${info.name}" is being recorded by process ${info.pid}; stop that recording first.`,
      );
    }
    await this.index.update((sessions) => {
      const i = sessions.findIndex((s) => s.id === info.id);
      if (i >= 0) sessions.splice(i, 1);
    });
    await fs.rm(this.harPath(info.id), { force: true });
    await fs.rm(this.journalPath(info.id), { force: true });
    return true;
  }

  /** Starts recording the proxy's exchanges into a new session (journal first, HAR on stop). */
  async startRecording(
    events: EventStream,
    options: { name?: string; source?: SessionSource; onError?: (err: Error) => void; timeline?: Timeline } = {},
  ): Promise<Recording> {
    const id = newId();
    const name = options.name ?? `Recording ${new Date().toISOString().slice(0, 19).replace('T', ' ')}`;
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const info: SessionRecord = {
      id,
      name,
      createdAt: new Date().toISOString(),
      entryCount: 0,
      source: options.source ?? 'capture',
      sizeBytes: 0,
      state: 'recording',
      pid: process.pid,
    };
    // Journal first: if the index cannot be written, recover() still finds the journal.
    const recorder = new HarRecorder(events, {
      journalFile: this.journalPath(id),
      name,
      onError: options.onError,
      timeline: options.timeline,
    });
    try {
      await this.index.update((sessions) => {
        info.name = uniqueName(
          info.name,
          sessions.map((s) => s.name),
        );
        sessions.push(info);
      });
    } catch (err) {
      recorder.stop();
      throw err;
    }
    let stopped: Promise<SessionRecord> | undefined;
    return {
      id,
      recorder,
      stop: () =>
        (stopped ??= (async () => {
          recorder.stop();
          return this.finishJournal(id);
        })()),
    };
  }

  /** Journal -> HAR, index updated, journal removed (in that order: a crash in between loses nothing). */
  private async finishJournal(id: string): Promise<SessionRecord> {
    const result = await exportJournal(this.journalPath(id), this.harPath(id), {}, { mode: 0o600 });
    const saved = await this.index.update((sessions) => {
      let s = sessions.find((x) => x.id === id);
      if (!s) {
        // A journal the index never heard of (the process died before the index was written).
        s = {
          id,
          name: result.meta?.name ?? `Recovered ${id}`,
          createdAt: result.meta?.created || new Date().toISOString(),
          entryCount: 0,
          source: 'capture',
          sizeBytes: 0,
          state: 'saved',
        };
        sessions.push(s);
      }
      s.state = 'saved';
      delete s.pid;
      s.entryCount = result.entries;
      s.sizeBytes = result.bytes;
      return { ...s };
    });
    await fs.rm(this.journalPath(id), { force: true });
    return saved;
  }

  /**
   * Turns interrupted recordings (their process is gone) and stray journals into
   * saved sessions. Returns the sessions recovered.
   */
  async recover(): Promise<SessionRecord[]> {
    const sessions = await this.list();
    const known = new Set(sessions.map((s) => s.id));
    const files = await fs.readdir(this.dir).catch(() => [] as string[]);
    const stray = files
      .filter((f) => f.endsWith('.journal'))
      .map((f) => f.slice(0, -'.journal'.length))
      .filter((id) => !known.has(id));
    const ids = [...sessions.filter((s) => this.isInterrupted(s)).map((s) => s.id), ...stray];
    const recovered: SessionRecord[] = [];
    for (const id of ids) {
      try {
        await fs.access(this.journalPath(id));
      } catch {
        // The journal is gone but the HAR may be there (crash after export): keep the HAR, fix the index.
        const har = await fs.stat(this.harPath(id)).catch(() => undefined);
        await this.index.update((list) => {
          const i = list.findIndex((s) => s.id === id);
          if (i < 0) return;
          if (har) Object.assign(list[i], { state: 'saved', sizeBytes: har.size, pid: undefined });
          else list.splice(i, 1);
        });
        continue;
      }
      recovered.push(await this.finishJournal(id));
    }
    return recovered;
  }

  /** Rebuilds the index from the files when it is damaged (the damaged one is kept aside). */
  private async rebuildIndex(): Promise<SessionRecord[]> {
    await fs.rename(this.index.file, `${this.index.file}.damaged-${Date.now()}`).catch(() => undefined);
    const files = await fs.readdir(this.dir).catch(() => [] as string[]);
    const sessions: SessionRecord[] = [];
    for (const f of files) {
      const full = path.join(this.dir, f);
      const stat = await fs.stat(full);
      const createdAt = stat.birthtime.getTime() > 0 ? stat.birthtime.toISOString() : stat.mtime.toISOString();
      if (f.endsWith('.har')) {
        const r = await readHarFile(full);
        if (!r.har) continue;
        sessions.push({
          id: f.slice(0, -4),
          name: f.slice(0, -4),
          createdAt,
          entryCount: r.har.log.entries.length,
          source: 'import',
          sizeBytes: stat.size,
          state: 'saved',
        });
      } else if (f.endsWith('.journal')) {
        // No pid: list() reports it as interrupted, recover() saves it.
        sessions.push({
          id: f.slice(0, -8),
          name: `Recovered ${f.slice(0, -8)}`,
          createdAt,
          entryCount: 0,
          source: 'capture',
          sizeBytes: stat.size,
          state: 'recording',
        });
      }
    }
    await this.index.replace(sessions);
    return sessions;
  }
}
