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

export class PageTracker {
  private pages: Array<HarPage & { url: string }> = [];
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
      const page = { id: `page_${this.pages.length + 1}`, startedDateTime: x.startedDateTime, title: x.url, pageTimings: {}, url: x.url };
      this.pages.push(page);
      const { url: _url, ...harPage } = page;
      return { pageref: page.id, newPage: harPage };
    }
    // No page yet (an API client, a proxy before any navigation): nothing to look up.
    if (this.pages.length === 0) return NO_PAGE;
    const referer = header(x.headers, 'referer');
    if (!referer) return NO_PAGE;
    // Newest page first: the same URL may have been loaded more than once.
    for (let i = this.pages.length - 1; i >= 0; i--) if (this.pages[i].url === referer) return { pageref: this.pages[i].id };
    // Referrer-Policy often cuts cross-origin referers to the origin.
    const refOrigin = origin(referer);
    for (let i = this.pages.length - 1; i >= 0; i--)
      if (refOrigin && origin(this.pages[i].url) === refOrigin) return { pageref: this.pages[i].id };
    return NO_PAGE;
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
