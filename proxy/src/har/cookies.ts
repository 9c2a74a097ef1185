/**
 * Cookie headers → HAR cookie objects. Request `Cookie` headers hold
 * `name=value` pairs; each response `Set-Cookie` holds one cookie and its
 * attributes (RFC 6265 §5.2). Values are kept as sent (no URL decoding), as
 * Chrome DevTools does.
 */
import type { RawHeaders } from '../model.js';
import type { HarCookie } from './types.js';
import { isHeaderName } from './header-name.js';

export function requestCookies(headers: RawHeaders): HarCookie[] {
  const out: HarCookie[] = [];
  for (const [name, value] of headers) {
    if (!isHeaderName(name, 'cookie')) continue;
    for (const pair of value.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0) {
        if (pair.trim()) out.push({ name: '', value: pair.trim() });
        continue;
      }
      out.push({ name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim() });
    }
  }
  return out;
}

/** `startedDateTime` anchors Max-Age, which is relative to when the response arrived. */
export function responseCookies(headers: RawHeaders, startedDateTime: string): HarCookie[] {
  const out: HarCookie[] = [];
  for (const [name, value] of headers) {
    if (!isHeaderName(name, 'set-cookie')) continue;
    const cookie = parseSetCookie(value, startedDateTime);
    if (cookie) out.push(cookie);
  }
  return out;
}

function parseSetCookie(header: string, startedDateTime: string): HarCookie | undefined {
  const [first, ...attrs] = header.split(';');
  const eq = first.indexOf('=');
  const cookie: HarCookie =
    eq < 0 ? { name: '', value: first.trim() } : { name: first.slice(0, eq).trim(), value: first.slice(eq + 1).trim() };
  let maxAge: number | undefined;
  for (const attr of attrs) {
    const i = attr.indexOf('=');
    const key = (i < 0 ? attr : attr.slice(0, i)).trim().toLowerCase();
    const val = i < 0 ? '' : attr.slice(i + 1).trim();
    switch (key) {
      case 'path':
        cookie.path = val;
        break;
      case 'domain':
        cookie.domain = val;
        break;
      case 'expires': {
        const d = new Date(val);
        if (!Number.isNaN(d.getTime())) cookie.expires = d.toISOString();
        break;
      }
      case 'max-age':
        if (/^-?\d+$/.test(val)) maxAge = Number(val);
        break;
      case 'httponly':
        cookie.httpOnly = true;
        break;
      case 'secure':
        cookie.secure = true;
        break;
      case 'samesite':
        // Chrome DevTools writes this (non-standard) field too.
        cookie.sameSite = val;
        break;
    }
  }
  // Max-Age wins over Expires (RFC 6265 §5.3 step 3).
  if (maxAge !== undefined) {
    const base = Date.parse(startedDateTime);
    if (!Number.isNaN(base)) cookie.expires = new Date(base + maxAge * 1000).toISOString();
  }
  if (!cookie.name && !cookie.value) return undefined;
  return cookie;
}
