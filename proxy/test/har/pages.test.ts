/**
 * Which page an exchange belongs to (har/pages.ts): navigations start pages, subresources join the page their
 * Referer names (or, cut to an origin by Referrer-Policy, the newest page of that origin), redirects stay on their
 * page; and a recording with more pages than it remembers keeps answering from the newest ones.
 */
import { describe, expect, it } from 'vitest';
import type { ExchangeStart, RawHeaders } from '../../src/model.js';
import { PageTracker } from '../../src/har/pages.js';

let seq = 0;
function start(url: string, headers: RawHeaders): ExchangeStart {
  seq++;
  return {
    id: `x${seq}`,
    clientConnectionId: 'c1',
    startedDateTime: new Date(Date.UTC(2026, 10, 27, 0, 0, 0, seq)).toISOString(),
    transport: 'intercepted',
    clientProtocol: 'h2',
    method: 'GET',
    url,
    headers,
    timestamps: { start: seq },
  } as ExchangeStart;
}
const navigate = (url: string) =>
  start(url, [
    ['Sec-Fetch-Mode', 'navigate'],
    ['sec-fetch-dest', 'document'],
  ]);
const sub = (url: string, referer?: string) => start(url, referer === undefined ? [['Accept', '*/*']] : [['Referer', referer]]);

describe('PageTracker', () => {
  it('gives subresources the page their Referer names, by URL or, cut to the origin, by origin; others none', () => {
    const pages = new PageTracker();
    expect(pages.onRequest(sub('https://api.test/x', 'https://a.test/'))).toEqual({});
    const first = pages.onRequest(navigate('https://a.test/one'));
    expect(first.pageref).toBe('page_1');
    expect(first.newPage).toMatchObject({ id: 'page_1', title: 'https://a.test/one', pageTimings: {} });
    expect(first.newPage).not.toHaveProperty('url');
    expect(pages.onRequest(navigate('https://b.test/two')).pageref).toBe('page_2');
    expect(pages.onRequest(sub('https://cdn.test/a.png', 'https://a.test/one')).pageref).toBe('page_1');
    expect(pages.onRequest(sub('https://cdn.test/b.png', 'https://b.test/')).pageref).toBe('page_2');
    expect(pages.onRequest(sub('https://cdn.test/c.png', 'https://c.test/'))).toEqual({});
    expect(pages.onRequest(sub('https://cdn.test/d.png'))).toEqual({});
    expect(pages.onRequest(sub('https://cdn.test/e.png', 'not a url'))).toEqual({});
    // The same URL loaded again: its subresources go to the newest load, and so do the origin's.
    expect(pages.onRequest(navigate('https://a.test/one')).pageref).toBe('page_3');
    expect(pages.onRequest(sub('https://cdn.test/f.png', 'https://a.test/one')).pageref).toBe('page_3');
    expect(pages.onRequest(sub('https://cdn.test/g.png', 'https://a.test/')).pageref).toBe('page_3');
  });

  it('keeps a redirected navigation on its page', () => {
    const pages = new PageTracker();
    expect(pages.onRequest(navigate('http://a.test/')).pageref).toBe('page_1');
    pages.onRedirect('http://a.test/', '/home', 'page_1');
    pages.onRedirect('http://a.test/', 'http://[bad', 'page_1');
    const hop = pages.onRequest(navigate('http://a.test/home'));
    expect(hop).toEqual({ pageref: 'page_1' });
    // Followed once: loading the target again is a page of its own.
    expect(pages.onRequest(navigate('http://a.test/home')).pageref).toBe('page_2');
  });

  it('remembers the newest 10,000 pages: older URLs fall back to their origin, newer ones still match', () => {
    const pages = new PageTracker();
    for (let i = 1; i <= 20_000; i++) pages.onRequest(navigate(`https://site${i % 3}.test/p${i}`));
    // page 1 was https://site1.test/p1: its URL is forgotten, its origin's newest page answers (p19999).
    expect(pages.onRequest(sub('https://cdn.test/x', 'https://site1.test/p1')).pageref).toBe('page_19999');
    expect(pages.onRequest(sub('https://cdn.test/y', 'https://site0.test/p15000')).pageref).toBe('page_15000');
    expect(pages.onRequest(navigate('https://site2.test/new')).pageref).toBe('page_20001');
  });
});
