/**
 * The session store behind the API's `SessionBackend` interface
 * (api/backends.ts), so the UI's session commands use the real, persistent
 * store. api/wiring.ts installs it with `sessions: storeBackend(dataDir)`.
 * Lives in api/ (not sessions/) because it adapts the store to the API's types:
 * sessions/ sits below api/ and imports nothing from it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SessionBackend, StoredSession } from './backends.js';
import type { SessionInfo } from './contract.js';
import type { Exchange } from '../model.js';
import { entriesOf, fileEntriesOf } from '../har/entry-async.js';
import { NETLENS_CREATOR } from '../har/writer.js';
import { ErrorCodes, NetlensError } from '../errors.js';
import { EntryFile } from '../sessions/entry-file.js';
import { SessionStore, type SessionRecord } from '../sessions/store.js';

function toInfo(s: SessionRecord): SessionInfo {
  return { id: s.id, name: s.name, createdAt: s.createdAt, entryCount: s.entryCount, source: s.source, sizeBytes: s.sizeBytes };
}

/** A file name that is safe on every platform, from a session name. */
function fileNameFor(name: string): string {
  return `${name.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_').trim() || 'session'}.har`;
}

export function storeBackend(dataDir: string, store = new SessionStore(dataDir)): SessionBackend {
  return {
    persistent: true,
    async list() {
      return (await store.list()).map(toInfo);
    },
    async open(id): Promise<StoredSession> {
      const { info, har } = await store.open(id);
      return { info: toInfo(info), log: har.log };
    },
    async entries(id) {
      const info = await store.get(id);
      const recording = info.state === 'recording';
      const file = recording ? store.journalPath(info.id) : store.harPath(info.id);
      try {
        const entries = recording ? await EntryFile.journal(file) : await EntryFile.har(file);
        return { info: toInfo({ ...info, entryCount: entries.count }), entries };
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        if (e.code === 'ENOENT') {
          throw new NetlensError(ErrorCodes.NOT_FOUND, `Session "${info.name}" has no file any more (${file}); it was deleted meanwhile.`);
        }
        throw new NetlensError(ErrorCodes.SESSION_STORE, `Session "${info.name}" (${file}) cannot be read: ${e.message}`, { cause: err });
      }
    },
    async saveCapture(name, exchanges: Exchange[], timeline) {
      // The socket timeline goes into the log head as `_connections`… (timeline/har.ts reads it back).
      const head = timeline ? { head: { extra: { ...timeline } } } : {};
      // Made one at a time off the event loop and streamed to the file (har/entry-async.ts): the proxy keeps running.
      return toInfo(await store.saveEntries(fileEntriesOf(exchanges), { name, source: 'capture', ...head }));
    },
    async rename(id, name) {
      return toInfo(await store.rename(id, name));
    },
    async importHar(fileName, text) {
      const { info } = await store.importText(text, { name: fileName.replace(/\.har$/i, ''), origin: fileName });
      return toInfo(info);
    },
    async importLabHar(file, name) {
      const origin = path.resolve(file);
      const known = (await store.list()).find((x) => x.source === 'lab' && x.origin === origin);
      if (known) return toInfo(known);
      const { info } = await store.importFile(origin, { name, source: 'lab' });
      return toInfo(info);
    },
    async exportHar(id) {
      const info = await store.get(id);
      if (info.state === 'recording') {
        const { har } = await store.open(id);
        return { fileName: fileNameFor(info.name), text: JSON.stringify(har, null, 2) };
      }
      return { fileName: fileNameFor(info.name), text: await fs.readFile(store.harPath(info.id), 'utf8') };
    },
    async exportCapture(exchanges, timeline) {
      const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
      const entries = [];
      for await (const entry of entriesOf(exchanges)) entries.push(entry);
      const log = { version: '1.2', creator: { ...NETLENS_CREATOR }, pages: [], entries, ...timeline };
      return { fileName: `netlens-capture-${stamp}.har`, text: JSON.stringify({ log }, null, 2) };
    },
    async delete(id) {
      return store.delete(id);
    },
  };
}
