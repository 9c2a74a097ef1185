/**
 * A mock that answers with a recorded response: `"har": { "file", "url", "method"? }` names
 * a HAR file (relative to the rules file, or the data directory for rules set in the app)
 * and the first entry whose request has that URL (and method). Checked when the rules load,
 * so a wrong file or URL is reported naming the rule and field, never at request time only.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { RawHeaders } from '../model.js';
import type { HarMockSource, RulesFile } from './types.js';

/** A HAR is data, but one this large is not a mock's source: refuse rather than hold it. */
export const MAX_HAR_MOCK_BYTES = 128 * 1024 * 1024;

/** Headers a replayed response must not repeat: HAR text is decoded, the proxy sets the length. */
const NOT_COPIED = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'date']);

export interface HarResponse {
  status: number;
  headers: RawHeaders;
  body: Buffer;
}

interface LooseEntry {
  request?: { method?: unknown; url?: unknown };
  response?: {
    status?: unknown;
    headers?: { name?: unknown; value?: unknown }[];
    content?: { text?: unknown; encoding?: unknown };
  };
}

/** The recorded response `ref` names in the parsed HAR `har`, or a message saying what is wrong (which field). */
function findResponse(har: unknown, ref: HarMockSource): HarResponse | { field: string; message: string } {
  const entries = (har as { log?: { entries?: unknown } })?.log?.entries;
  if (!Array.isArray(entries)) return { field: 'file', message: `${ref.file} is not a HAR (no log.entries)` };
  const method = ref.method?.toUpperCase();
  const e = (entries as LooseEntry[]).find(
    (x) => x?.request?.url === ref.url && (method === undefined || String(x.request.method).toUpperCase() === method),
  );
  if (!e) return { field: 'url', message: `${ref.url}${method ? ` (${method})` : ''} is not the URL of any entry in ${ref.file}` };
  const r = e.response;
  if (!r || typeof r.status !== 'number' || r.status < 100 || r.status > 999) {
    return { field: 'url', message: `the entry for ${ref.url} in ${ref.file} has no response (status ${String(r?.status)})` };
  }
  const headers: RawHeaders = [];
  for (const h of r.headers ?? []) {
    if (typeof h?.name !== 'string' || typeof h.value !== 'string') continue;
    if (h.name.startsWith(':') || NOT_COPIED.has(h.name.toLowerCase())) continue;
    headers.push([h.name, h.value]);
  }
  const text = typeof r.content?.text === 'string' ? r.content.text : '';
  const body = r.content?.encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  return { status: r.status, headers, body };
}

function parse(text: string, ref: HarMockSource): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw Object.assign(new Error(`${ref.file} is not JSON: ${(err as Error).message}`), { field: 'file' });
  }
}

function tooBig(size: number, ref: HarMockSource): Error | undefined {
  if (size <= MAX_HAR_MOCK_BYTES) return undefined;
  return Object.assign(new Error(`${ref.file} is ${size} bytes; a mock's HAR is at most ${MAX_HAR_MOCK_BYTES}`), { field: 'file' });
}

/**
 * Problems of every `har` mock in `file`, each as `rules[i] (id "x"): actions[j].har.<field> <message>`;
 * [] when each names a readable HAR with a response for its URL. Each HAR file is read once.
 */
export function harMockProblems(file: RulesFile, resolve: (f: string) => string): string[] {
  const parsed = new Map<string, unknown>();
  const out: string[] = [];
  for (const [i, r] of file.rules.entries()) {
    for (const [j, a] of r.actions.entries()) {
      if (a.type !== 'mock' || !a.har) continue;
      const at = `rules[${i}] (id "${r.id}"): actions[${j}].har`;
      const abs = resolve(a.har.file);
      try {
        if (!parsed.has(abs)) {
          const st = fs.statSync(abs);
          if (!st.isFile()) throw Object.assign(new Error(`${abs} is not a file`), { field: 'file' });
          const big = tooBig(st.size, a.har);
          if (big) throw big;
          parsed.set(abs, parse(fs.readFileSync(abs, 'utf8'), a.har));
        }
        const found = findResponse(parsed.get(abs), a.har);
        if ('message' in found) out.push(`${at}.${found.field} ${found.message}`);
      } catch (err) {
        const field = (err as { field?: string }).field ?? 'file';
        out.push(
          `${at}.${field} ${field === 'file' && !(err as { field?: string }).field ? `${abs} cannot be read: ` : ''}${(err as Error).message}`,
        );
      }
    }
  }
  return out;
}

/** Resolved responses by file and entry; dropped when the file changes (size or mtime). */
const cache = new Map<string, { mtimeMs: number; size: number; response: HarResponse }>();
const CACHE_MAX = 64;

/** The recorded response for a request (read once per file version, then served from memory); throws when it is gone. */
export async function harMockResponse(abs: string, ref: HarMockSource): Promise<HarResponse> {
  const st = await fsp.stat(abs);
  const key = `${abs}\0${ref.method ?? ''}\0${ref.url}`;
  const hit = cache.get(key);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.response;
  const big = tooBig(st.size, ref);
  if (big) throw big;
  const found = findResponse(parse(await fsp.readFile(abs, 'utf8'), ref), ref);
  if ('message' in found) throw new Error(found.message);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, { mtimeMs: st.mtimeMs, size: st.size, response: found });
  return found;
}
