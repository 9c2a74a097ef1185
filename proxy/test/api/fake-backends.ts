/**
 * Stand-ins for the core's backends (src/api/backends.ts) in tests: production
 * wires the real ones (src/api/wiring.ts `coreBackends`). `fakeBackends()` gives
 * sessions kept in memory, a lab and a browser that are not available (their
 * commands fail with NL_FEATURE_UNAVAILABLE); override any one of them.
 */
import fs from 'node:fs';
import type { BrowserBackend, LabBackend, SessionBackend } from '../../src/api/backends.js';
import type { SessionInfo } from '../../src/api/contract.js';
import { parseHarText, type ParsedLog } from '../../src/api/har-text.js';
import { ErrorCodes, NetlensError } from '../../src/errors.js';
import { isObject, normalizeHar } from '../../src/har/normalize.js';

export const unavailableLab: LabBackend = {
  available: false,
  async run() {
    throw new NetlensError(ErrorCodes.FEATURE_UNAVAILABLE, 'The lab is not available in this test (fake-backends.ts unavailableLab).');
  },
};

export const unavailableBrowser: BrowserBackend = {
  available: false,
  async launch() {
    throw new NetlensError(
      ErrorCodes.FEATURE_UNAVAILABLE,
      'Launching Chrome is not available in this test (fake-backends.ts unavailableBrowser).',
    );
  },
};

/**
 * Sessions kept in memory (`persistent: false`), checked only as loosely as
 * parseHarText does. Imports are kept as they came (the UI's views are total over
 * any JSON); `open` normalizes for replay, as the real store does on import.
 * Saving or exporting the live capture is not supported (NL_FEATURE_UNAVAILABLE).
 */
export function memorySessions(): SessionBackend {
  const sessions = new Map<string, { info: SessionInfo; log: ParsedLog }>();
  let next = 1;
  const get = (id: string) => {
    const s = sessions.get(id);
    if (!s) throw new NetlensError(ErrorCodes.NOT_FOUND, `No session "${id}" (it may have been deleted). Refresh the session list.`);
    return s;
  };
  const add = (name: string, source: SessionInfo['source'], log: ParsedLog, sizeBytes?: number): SessionInfo => {
    const createdAt = new Date().toISOString();
    const info: SessionInfo = { id: `s${next++}`, name, createdAt, entryCount: log.entries.length, source, sizeBytes };
    sessions.set(info.id, { info, log });
    return info;
  };
  const noCapture = (): never => {
    throw new NetlensError(ErrorCodes.FEATURE_UNAVAILABLE, 'The in-memory test sessions cannot save or export the live capture.');
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
    saveCapture: async () => noCapture(),
    async rename(id, name) {
      const s = get(id);
      s.info = { ...s.info, name };
      return s.info;
    },
    async importHar(fileName, text) {
      return add(fileName.replace(/\.har$/i, ''), 'import', parseHarText(fileName, text), Buffer.byteLength(text));
    },
    async importLabHar(file, name) {
      const known = [...sessions.values()].find((s) => s.info.source === 'lab' && s.info.name === name);
      if (known) return known.info;
      const text = fs.readFileSync(file, 'utf8');
      return add(name, 'lab', parseHarText(file, text), Buffer.byteLength(text));
    },
    async exportHar(id) {
      const s = get(id);
      return { fileName: `${s.info.name}.har`, text: JSON.stringify({ log: s.log }, null, 2) };
    },
    exportCapture: async () => noCapture(),
    async delete(id) {
      return sessions.delete(id);
    },
  };
}

export interface Backends {
  sessions: SessionBackend;
  lab: LabBackend;
  browser: BrowserBackend;
}

/** Fresh in-memory sessions and an unavailable lab and browser, with any of them replaced. */
export function fakeBackends(over: Partial<Backends> = {}): Backends {
  return { sessions: memorySessions(), lab: unavailableLab, browser: unavailableBrowser, ...over };
}
