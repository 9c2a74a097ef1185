/**
 * The optional parts of the core that core-service.ts delegates to: session
 * storage (proxy/src/sessions, proxy/src/har), the lab (proxy/src/lab) and
 * browser launch (proxy/src/browser). Each is an interface here so the service
 * can run (and be tested) before, and without, those modules.
 */
import type { Exchange } from '../model.js';
import type { BrowserInfo, LabCellInfo, SessionInfo } from './contract.js';
import type { LabConfig, LabProgress, LabResult } from '../lab/types.js';
import { ALL_CELLS, cellSettings } from '../lab/cells.js';
import type { HarLog, LooseHarEntry, LooseHarLog, LooseHarPage } from '../har/types.js';
import { isObject, normalizeHar } from '../har/normalize.js';
import { ErrorCodes, NetlensError } from '../errors.js';
import type { TimelineLog } from '../timeline/types.js';

/** A session's whole log (replay needs every entry). */
export interface StoredSession {
  info: SessionInfo;
  log: HarLog;
}

/**
 * A session read entry by entry (sessions/entry-file.ts for the store): what the
 * UI shows of a session never needs the whole log in memory.
 */
export interface SessionEntries {
  readonly count: number;
  readonly pages: LooseHarPage[];
  /**
   * Entry `i` (0 ≤ i < count), parsed. With `cap`, a source may cut strings longer
   * than `cap` bytes while reading and mark them (sessions/capped-json.ts `splitCut`).
   */
  entry(i: number, cap?: number): Promise<LooseHarEntry>;
  /** Every entry in order, one at a time (`cap` as for `entry`). */
  all(cap?: number): AsyncIterable<LooseHarEntry>;
  /** The log's socket timeline fields (`_connections`…; timeline/har.ts reads them), when it has them. */
  readonly timeline?: unknown;
}

export interface SessionBackend {
  /** False while the real store is not installed (the in-memory one forgets on restart). */
  readonly persistent: boolean;
  list(): Promise<SessionInfo[]>;
  open(id: string): Promise<StoredSession>;
  entries(id: string): Promise<{ info: SessionInfo; entries: SessionEntries }>;
  /** Saves recorded exchanges as a new session, with their socket timeline (`log._connections`) when given. */
  saveCapture(name: string, exchanges: Exchange[], timeline?: TimelineLog): Promise<SessionInfo>;
  rename(id: string, name: string): Promise<SessionInfo>;
  importHar(fileName: string, text: string): Promise<SessionInfo>;
  /** HAR text of a stored session. */
  exportHar(id: string): Promise<{ fileName: string; text: string }>;
  /** HAR text of live exchanges. */
  exportCapture(exchanges: Exchange[], timeline?: TimelineLog): Promise<{ fileName: string; text: string }>;
  delete(id: string): Promise<boolean>;
}

export interface LabBackend {
  readonly available: boolean;
  /** lab/runner `runLab(config, { signal, onProgress })`. */
  run(config: LabConfig, opts: { signal: AbortSignal; onProgress: (p: LabProgress) => void }): Promise<LabResult>;
}

export interface BrowserBackend {
  readonly available: boolean;
  launch(opts: { proxyUrl: string; spkiHash: string; url?: string; dataDir: string }): Promise<BrowserInfo & { close(): Promise<void> }>;
}

/** The lab matrix (lab/cells.ts) with labels for the UI. */
export function labCells(): LabCellInfo[] {
  return ALL_CELLS.map((id) => ({ id, label: id.split('+').join(' · '), settings: cellSettings(id) }));
}

export const unavailableLab: LabBackend = {
  available: false,
  async run() {
    throw new NetlensError(
      ErrorCodes.FEATURE_UNAVAILABLE,
      'The lab is not part of this build yet (proxy/src/lab). Use "netlens proxy" and your browser to inspect traffic meanwhile.',
    );
  },
};

export const unavailableBrowser: BrowserBackend = {
  available: false,
  async launch() {
    throw new NetlensError(
      ErrorCodes.FEATURE_UNAVAILABLE,
      'Launching Chrome is not part of this build yet (proxy/src/browser). Point your browser at the proxy address shown in the toolbar instead.',
    );
  },
};

/** A HAR log as read: only `entries` is known to be an array. */
export type ParsedLog = LooseHarLog & { entries: LooseHarEntry[] };

/** Minimal HAR check for the in-memory store and the lab's HARs; the real store validates against the HAR 1.2 schema. */
export function parseHarText(fileName: string, text: string): ParsedLog {
  let doc: unknown;
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new NetlensError(ErrorCodes.API_BAD_REQUEST, `${fileName} is not valid JSON (${(err as Error).message}). Is it a complete HAR file?`);
  }
  const log = (doc as { log?: ParsedLog } | null)?.log;
  if (!log || !Array.isArray(log.entries)) {
    throw new NetlensError(ErrorCodes.API_BAD_REQUEST, `${fileName} is not a HAR file: it has no "log.entries" array.`);
  }
  return log;
}

/**
 * Sessions kept in memory: used until the real session store lands, so the UI's
 * import/open/rename/delete flows work; nothing survives a restart.
 */
export function memorySessions(
  tools: { parse?: (fileName: string, text: string) => ParsedLog; captureLog?: (exchanges: Exchange[]) => HarLog } = {},
): SessionBackend {
  const parse = tools.parse ?? parseHarText;
  // Kept as imported (the UI's views are total over any JSON); `open` normalizes for replay, as the real store does on import.
  const sessions = new Map<string, { info: SessionInfo; log: ParsedLog }>();
  let next = 1;
  const get = (id: string) => {
    const s = sessions.get(id);
    if (!s) throw new NetlensError(ErrorCodes.NOT_FOUND, `No session "${id}" (it may have been deleted). Refresh the session list.`);
    return s;
  };
  const add = (name: string, source: SessionInfo['source'], log: ParsedLog, sizeBytes?: number): SessionInfo => {
    const info: SessionInfo = { id: `s${next++}`, name, createdAt: new Date().toISOString(), entryCount: log.entries.length, source, sizeBytes };
    sessions.set(info.id, { info, log });
    return info;
  };
  const captureLog = (exchanges: Exchange[], timeline?: TimelineLog): HarLog => {
    if (!tools.captureLog) {
      throw new NetlensError(ErrorCodes.FEATURE_UNAVAILABLE, 'Saving or exporting the live capture needs the HAR recorder (proxy/src/har), not part of this build yet.');
    }
    return { ...tools.captureLog(exchanges), ...timeline };
  };
  return {
    persistent: false,
    async list() {
      return [...sessions.values()].map((s) => s.info).reverse();
    },
    async open(id) {
      const { info, log } = get(id);
      // An entry that is not an object becomes an empty (normalized) one: indexes stay those of the file.
      return { info, log: normalizeHar({ log: { ...log, entries: log.entries.map((e) => (isObject(e) ? e : {})) } }).log };
    },
    async entries(id) {
      const { info, log } = get(id);
      const list = log.entries;
      return {
        info,
        entries: {
          count: list.length,
          pages: Array.isArray(log.pages) ? log.pages : [],
          timeline: log,
          entry: async (i: number) => list[i]!,
          async *all() {
            yield* list;
          },
        },
      };
    },
    async saveCapture(name, exchanges, timeline) {
      return add(name, 'capture', captureLog(exchanges, timeline));
    },
    async rename(id, name) {
      const s = get(id);
      s.info = { ...s.info, name };
      return s.info;
    },
    async importHar(fileName, text) {
      return add(fileName.replace(/\.har$/i, ''), 'import', parse(fileName, text), Buffer.byteLength(text));
    },
    async exportHar(id) {
      const s = get(id);
      return { fileName: `${s.info.name}.har`, text: JSON.stringify({ log: s.log }, null, 2) };
    },
    async exportCapture(exchanges, timeline) {
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      return { fileName: `netlens-capture-${stamp}.har`, text: JSON.stringify({ log: captureLog(exchanges, timeline) }, null, 2) };
    },
    async delete(id) {
      return sessions.delete(id);
    },
  };
}
