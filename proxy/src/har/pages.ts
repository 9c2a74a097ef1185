/**
 * Which page an exchange belongs to (HAR `pageref`), from what a proxy can see:
 * a browser marks top-level navigations (`Sec-Fetch-Mode: navigate` +
 * `Sec-Fetch-Dest: document`) and sends the document's URL as `Referer` for its
 * subresources. Decided when the request head arrives, because exchanges
 * complete out of order (a subresource often finishes before its HTML).
 * Requests that fit no page get no pageref, which HAR allows.
 */
import type { ExchangeStart, RawHeaders } from '../model.js';
import type { HarPage } from './types.js';
import { isHeaderName } from './header-name.js';

function header(headers: RawHeaders, name: string): string | undefined {
  // This runs for every request: isHeaderName lower-cases no name.
  for (const [k, v] of headers) if (isHeaderName(k, name)) return v;
  return undefined;
}

function origin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The answer for a request that belongs to no page (most of them): one object, not one per request. */
const NO_PAGE: { pageref?: string; newPage?: HarPage } = Object.freeze({});

/**
 * Pages remembered for Referer lookups: the newest ones (a subresource's document is a page loaded recently).
 * Bounded, so a recording left running for a week keeps its lookups O(1) and its memory flat.
 */
const MAX_PAGES_REMEMBERED = 10_000;

/** `key` → `value` as the newest entry of `map` (the oldest dropped past the bound). */
function remember(map: Map<string, string>, key: string, value: string): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_PAGES_REMEMBERED) map.delete(map.keys().next().value!);
}

export class PageTracker {
  /** Pages started so far (their ids count up: page_1, page_2 and so on). */
  private count = 0;
  /**
   * The newest page of each document URL, and of each origin. Until 2026-11-27 each request without a matching
   * Referer parsed the URL of every page started so far (new URL per page), so a long recording made every request
   * slower; now one map lookup each.
   */
  private byUrl = new Map<string, string>();
  private byOrigin = new Map<string, string>();
  /** Redirect targets of navigations: the next hop stays on the same page. */
  private redirects = new Map<string, string>();

  /** Returns the pageref for this request and, when it starts a page, the new page. */
  onRequest(x: ExchangeStart): { pageref?: string; newPage?: HarPage } {
    const navigate = header(x.headers, 'sec-fetch-mode') === 'navigate' && header(x.headers, 'sec-fetch-dest') === 'document';
    if (navigate) {
      const redirected = this.redirects.get(x.url);
      if (redirected) {
        this.redirects.delete(x.url);
        return { pageref: redirected };
      }
      const page: HarPage = { id: `page_${++this.count}`, startedDateTime: x.startedDateTime, title: x.url, pageTimings: {} };
      remember(this.byUrl, x.url, page.id);
      const pageOrigin = origin(x.url);
      if (pageOrigin) remember(this.byOrigin, pageOrigin, page.id);
      return { pageref: page.id, newPage: page };
    }
    // No page yet (an API client, a proxy before any navigation): nothing to look up.
    if (this.count === 0) return NO_PAGE;
    const referer = header(x.headers, 'referer');
    if (!referer) return NO_PAGE;
    // The newest page of that URL: the same URL may have been loaded more than once.
    const byUrl = this.byUrl.get(referer);
    if (byUrl) return { pageref: byUrl };
    // Referrer-Policy often cuts cross-origin referers to the origin.
    const refOrigin = origin(referer);
    const byOrigin = refOrigin ? this.byOrigin.get(refOrigin) : undefined;
    return byOrigin ? { pageref: byOrigin } : NO_PAGE;
  }

  /** A navigation answered with a redirect: its target belongs to the same page. */
  onRedirect(fromUrl: string, location: string, pageref: string): void {
    try {
      this.redirects.set(new URL(location, fromUrl).href, pageref);
      // Keep the map small: a redirect not followed soon never will be.
      if (this.redirects.size > 100) this.redirects.delete(this.redirects.keys().next().value!);
    } catch {
      // unparsable Location: nothing to follow
    }
  }
}
