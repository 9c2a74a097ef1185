/**
 * The window's lockdown, as pure data and pure checks (tested without Electron):
 * BrowserWindow options, the Content-Security-Policy, which URLs are "ours",
 * which external links may be opened, and how an app URL maps to a file.
 *
 * The renderer is served from the custom `netlens://app/` scheme (registered
 * as standard + secure in main.ts): a fixed origin that is never remote
 * content, that sender validation can recognise, and that keeps relative
 * asset URLs of the Vite build (`base: './'`) working.
 */
import path from 'node:path';
import type { BrowserWindowConstructorOptions } from 'electron';
import { contentTypeFor } from '../proxy/src/api/content-types.js';

export const APP_SCHEME = 'netlens';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_URL = `${APP_ORIGIN}/index.html`;

/**
 * Same policy as `netlens serve` (http-transport.ts) minus the WebSocket:
 * in Electron the API travels over IPC, so the page needs no network at all.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-src 'none'",
  "worker-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * `devTools`: true only when running from a checkout (`!app.isPackaged`). A packaged
 * build has no DevTools: the page holds the capture (cookies, tokens) and IPC to
 * the core, and DevTools would let anyone at the keyboard script both. Default false.
 */
export function windowOptions(opts: { preload: string; icon?: string; devTools?: boolean }): BrowserWindowConstructorOptions {
  return {
    width: 1440,
    height: 900,
    minWidth: 900,
    minHeight: 560,
    title: 'Netlens',
    icon: opts.icon,
    // Shown on 'ready-to-show': no white flash before the first paint.
    show: false,
    backgroundColor: '#ffffff',
    webPreferences: {
      preload: opts.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      devTools: opts.devTools ?? false,
    },
  };
}

/** True for a URL of our own app (the only content the window may show or that may call IPC). */
export function isAppUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST && u.username === '' && u.password === '' && u.port === '';
  } catch {
    return false;
  }
}

/** Links the user clicked may leave the app only as https to a real host, opened by the OS browser. */
export function isSafeExternalUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' && u.hostname !== '' && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}

/**
 * The file under `rendererDir` an app URL names, or undefined when it escapes
 * the directory, is not ours, or is malformed. `/` serves index.html.
 */
export function appFileFor(rendererDir: string, url: string): string | undefined {
  if (!isAppUrl(url)) return undefined;
  let rel: string;
  try {
    rel = decodeURIComponent(new URL(url).pathname);
  } catch {
    return undefined;
  }
  if (rel.includes('\0')) return undefined;
  rel = rel.replace(/^\/+/, '') || 'index.html';
  const root = path.resolve(rendererDir);
  const file = path.resolve(root, rel);
  return file.startsWith(root + path.sep) ? file : undefined;
}

/** Headers of every app response: the CSP travels with each page, not only in a meta tag. */
export function appResponseHeaders(file: string): Record<string, string> {
  return {
    'content-type': contentTypeFor(file),
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

/**
 * Permission requests and checks are denied, except writing to the clipboard
 * from our own page (Details → Copy as cURL uses navigator.clipboard).
 */
export function isPermissionAllowed(permission: string, origin: string | undefined): boolean {
  return permission === 'clipboard-sanitized-write' && isAppUrl(origin);
}

/** The part of a WebContents the lockdown touches (a fake in tests). */
export interface ContentsLike {
  on(event: string, listener: (event: { preventDefault(): void }, url: string) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

/**
 * Navigation away from the app and new windows are denied; a link to an
 * https page opens in the user's browser instead (after isSafeExternalUrl).
 */
export function lockDownContents(contents: ContentsLike, openExternal: (url: string) => unknown): void {
  contents.on('will-navigate', (event, url) => {
    if (isAppUrl(url)) return;
    event.preventDefault();
    if (isSafeExternalUrl(url)) void openExternal(url);
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) void openExternal(url);
    return { action: 'deny' };
  });
}

/** A key press as Electron's 'before-input-event' gives it. */
export interface KeyInput {
  type: string;
  key: string;
  control?: boolean;
  meta?: boolean;
  shift?: boolean;
  alt?: boolean;
}

/** Chromium's DevTools shortcuts: F12, Ctrl+Shift+I/J/C, and Cmd+Alt+I/J/C on macOS. */
export function isDevToolsShortcut(input: KeyInput): boolean {
  if (input.type !== 'keyDown') return false;
  const key = input.key.toLowerCase();
  if (key === 'f12') return true;
  if (!['i', 'j', 'c'].includes(key)) return false;
  return Boolean((input.control && input.shift) || (input.meta && input.alt));
}

/** The part of a WebContents the DevTools lockdown touches (a fake in tests). */
export interface DevToolsContentsLike {
  on(event: 'before-input-event', listener: (event: { preventDefault(): void }, input: KeyInput) => void): unknown;
  on(event: 'devtools-opened', listener: () => void): unknown;
  closeDevTools(): void;
}

/**
 * Packaged builds: besides `webPreferences.devTools: false` (which already stops
 * them opening) and no Toggle Developer Tools menu item, the shortcuts are
 * swallowed and DevTools that open anyway (another web contents, a future
 * Electron default) are closed at once.
 */
export function lockDownDevTools(contents: DevToolsContentsLike): void {
  contents.on('before-input-event', (event, input) => {
    if (isDevToolsShortcut(input)) event.preventDefault();
  });
  contents.on('devtools-opened', () => contents.closeDevTools());
}
