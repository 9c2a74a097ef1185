/**
 * The lab's HTTP/1.1 page shape for the HTTPS load clients (bench/https-paired.ts --page, bench/profile.ts page):
 * the built-in test site's 200 images in turn, each with Chromium's request headers.
 */
import { browserImageHeaders } from './browser-headers.js';

export interface PageShape {
  /** The test site's URL by name, not by IP: the floor picks its certificate by SNI, which no client sends for an IP. */
  url: string;
  paths: string[];
  headers: Record<string, string>;
}

/** The page shape for a test site at `siteUrl` (as the site reports it, https://127.0.0.1:PORT/). */
export function pageShape(siteUrl: string): PageShape {
  const url = siteUrl.replace('//127.0.0.1:', '//localhost:');
  return { url, paths: Array.from({ length: 200 }, (_, i) => `/img/${i}.png`), headers: browserImageHeaders(new URL(url)) };
}

/** The URLs a load client asks for in turn: `paths` of `url`'s origin, or `url` alone. */
export function targetCycle(url: string, paths?: string[]): () => string {
  const targets = paths?.length ? paths.map((p) => new URL(p, url).href) : [url];
  let next = 0;
  return () => targets[next++ % targets.length]!;
}
