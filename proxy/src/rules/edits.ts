/**
 * Header and body edits shared by rewriteRequest and rewriteResponse: pure functions on raw
 * headers (order and case of untouched headers kept) and whole bodies.
 */
import type { RawHeaders } from '../model.js';
import type { BodyEdits, HeaderEdits } from './types.js';
import { inflateWhole } from '../har/body.js';

export function editHeaders(headers: RawHeaders, e: HeaderEdits | undefined): RawHeaders {
  if (!e) return headers;
  let out = headers;
  if (e.remove?.length) {
    const drop = new Set(e.remove.map((n) => n.toLowerCase()));
    out = out.filter(([k]) => !drop.has(k.toLowerCase()));
  }
  for (const [name, value] of Object.entries(e.set ?? {})) {
    const lower = name.toLowerCase();
    const i = out.findIndex(([k]) => k.toLowerCase() === lower);
    out = out.filter(([k], j) => j === i || k.toLowerCase() !== lower);
    if (i >= 0) out = out.map((h, j) => (j === i ? [h[0], value] : h));
    else out = [...out, [name, value]];
  }
  for (const [name, value] of Object.entries(e.add ?? {})) out = [...out, [name, value]];
  return out;
}

export function removeHeaders(headers: RawHeaders, names: string[]): RawHeaders {
  const drop = new Set(names);
  return headers.filter(([k]) => !drop.has(k.toLowerCase()));
}

export function headerOf(headers: RawHeaders, name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find(([k]) => k.toLowerCase() === lower)?.[1];
}

/** RFC 7396 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Applies body edits; a JSON merge patch on a body that is not JSON leaves it as it is. */
export function editBody(body: Buffer, e: BodyEdits | undefined): Buffer {
  if (!e) return body;
  let text = e.text !== undefined ? e.text : body.toString('utf8');
  for (const r of e.replace ?? []) text = text.replace(new RegExp(r.regex, r.flags ?? 'g'), r.with);
  if (e.jsonMergePatch !== undefined) {
    try {
      text = JSON.stringify(mergePatch(JSON.parse(text), e.jsonMergePatch));
    } catch {
      // Not JSON: a merge patch has nothing to apply to.
    }
  }
  return Buffer.from(text, 'utf8');
}

export function injectScriptTag(html: Buffer, src: string): Buffer {
  const tag = `<script src="${src.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"></script>`;
  const text = html.toString('utf8');
  const at = text.search(/<\/head\s*>/i);
  return Buffer.from(at >= 0 ? `${text.slice(0, at)}${tag}${text.slice(at)}` : `${tag}${text}`, 'utf8');
}

/**
 * Decodes a whole content-encoded body (gzip, deflate, br) for a rewrite or a breakpoint: undefined when the coding
 * is unknown or the bytes are bad, `too-large` when the decoded body would be over `max` bytes (a few KiB of gzip
 * inflate to gigabytes). On libuv's thread pool (har/body.ts): decoded at once with zlib's *Sync calls, up to the
 * 8 MiB rewrite bound held the proxy's event loop ~30 ms, and a breakpoint's decode had no bound at all.
 */
export async function decodeBounded(body: Buffer, encoding: string | undefined, max: number): Promise<Buffer | undefined | 'too-large'> {
  const coding = (encoding ?? '').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return body.length > max ? 'too-large' : body;
  try {
    return await inflateWhole(body, coding, max);
  } catch (err) {
    return (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? 'too-large' : undefined;
  }
}
