import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  APP_URL,
  CONTENT_SECURITY_POLICY,
  appFileFor,
  appResponseHeaders,
  isAppUrl,
  isPermissionAllowed,
  isSafeExternalUrl,
  lockDownContents,
  windowOptions,
} from './window.js';

describe('windowOptions', () => {
  const opts = windowOptions({ preload: '/app/dist/electron/preload.cjs' });

  it('locks the renderer down (Electron security checklist)', () => {
    expect(opts.webPreferences).toMatchObject({
      preload: '/app/dist/electron/preload.cjs',
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
    });
  });

  it('waits for the first paint before showing', () => {
    expect(opts.show).toBe(false);
    expect(opts.title).toBe('Netlens');
  });
});

describe('CONTENT_SECURITY_POLICY', () => {
  const directives = Object.fromEntries(
    CONTENT_SECURITY_POLICY.split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([k, ...v]) => [k, v]),
  );

  it('is strict: self only, no eval, no inline script, no plugins, no framing', () => {
    expect(directives['default-src']).toEqual(["'self'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['base-uri']).toEqual(["'none'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|unsafe-inline|\*|https?:/);
  });

  it('travels with every app response', () => {
    expect(appResponseHeaders('/r/index.html')).toMatchObject({
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'content-type': 'text/html; charset=utf-8',
    });
    expect(appResponseHeaders('/r/assets/index-abc.js')['content-type']).toBe('text/javascript; charset=utf-8');
    expect(appResponseHeaders('/r/assets/x.bin')['content-type']).toBe('application/octet-stream');
  });
});

describe('app URLs', () => {
  it('the window loads our custom scheme, never remote content', () => {
    expect(APP_URL).toBe('netlens://app/index.html');
    expect(isAppUrl(APP_URL)).toBe(true);
    expect(isAppUrl('https://app/index.html')).toBe(false);
    expect(isAppUrl('netlens://app:99/')).toBe(false);
    expect(isAppUrl('not a url')).toBe(false);
    expect(isAppUrl(undefined)).toBe(false);
  });

  it('maps app URLs to files inside the renderer directory only', () => {
    const dir = path.resolve('/srv/renderer');
    expect(appFileFor(dir, 'netlens://app/')).toBe(path.join(dir, 'index.html'));
    expect(appFileFor(dir, 'netlens://app/index.html?token=1#x')).toBe(path.join(dir, 'index.html'));
    expect(appFileFor(dir, 'netlens://app/assets/index-1.js')).toBe(path.join(dir, 'assets', 'index-1.js'));
    expect(appFileFor(dir, 'netlens://app/assets/a%20b.css')).toBe(path.join(dir, 'assets', 'a b.css'));
    // URL parsing folds ../ and %2e%2e/ segments; an encoded slash survives it and must be caught here.
    expect(appFileFor(dir, 'netlens://app/../../etc/passwd')).toBe(path.join(dir, 'etc', 'passwd'));
    expect(appFileFor(dir, 'netlens://app/%2e%2e/%2e%2e/etc/passwd')).toBe(path.join(dir, 'etc', 'passwd'));
    expect(appFileFor(dir, 'netlens://app/..%2f..%2fetc%2fpasswd')).toBeUndefined();
    expect(appFileFor(dir, 'netlens://app/a%00b')).toBeUndefined();
    expect(appFileFor(dir, 'netlens://app/%E0%A4%A')).toBeUndefined();
    expect(appFileFor(dir, 'https://app/index.html')).toBeUndefined();
  });
});

describe('external links and permissions', () => {
  it.each([
    ['https://developer.mozilla.org/docs/Web/HTTP', true],
    ['http://example.com/', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['smb://host/share', false],
    ['https://user:pw@example.com/', false],
    ['netlens://app/index.html', false],
    ['garbage', false],
  ])('isSafeExternalUrl(%s) = %s', (url, safe) => {
    expect(isSafeExternalUrl(url)).toBe(safe);
  });

  it('denies permissions except clipboard writes from our own page', () => {
    for (const p of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read', 'fullscreen'])
      expect(isPermissionAllowed(p, 'netlens://app')).toBe(false);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'netlens://app')).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'netlens://app/index.html')).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://example.com')).toBe(false);
    expect(isPermissionAllowed('clipboard-sanitized-write', undefined)).toBe(false);
  });
});

describe('lockDownContents', () => {
  function fakeContents() {
    const listeners = new Map<string, (event: { preventDefault(): void }, url: string) => void>();
    let openHandler: ((d: { url: string }) => { action: 'deny' }) | undefined;
    const contents = {
      on: (e: string, l: (event: { preventDefault(): void }, url: string) => void) => listeners.set(e, l),
      setWindowOpenHandler: (h: typeof openHandler) => (openHandler = h),
    };
    const opened: string[] = [];
    lockDownContents(contents as never, (url) => opened.push(url));
    const fire = (name: string, url: string) => {
      let prevented = false;
      listeners.get(name)!({ preventDefault: () => (prevented = true) }, url);
      return prevented;
    };
    return { fire, open: (url: string) => openHandler!({ url }), opened };
  }

  it('allows navigation inside the app only; https links go to the OS browser', () => {
    const c = fakeContents();
    expect(c.fire('will-navigate', 'netlens://app/index.html')).toBe(false);
    expect(c.fire('will-navigate', 'https://example.com/')).toBe(true);
    expect(c.fire('will-navigate', 'http://example.com/')).toBe(true);
    expect(c.fire('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(c.fire('will-redirect', 'https://example.com/')).toBe(true);
    expect(c.fire('will-attach-webview', 'netlens://app/')).toBe(true);
    expect(c.opened).toEqual(['https://example.com/']);
  });

  it('denies every new window, opening only safe https URLs externally', () => {
    const c = fakeContents();
    expect(c.open('https://developer.mozilla.org/')).toEqual({ action: 'deny' });
    expect(c.open('netlens://app/index.html')).toEqual({ action: 'deny' });
    expect(c.open('javascript:alert(1)')).toEqual({ action: 'deny' });
    expect(c.opened).toEqual(['https://developer.mozilla.org/']);
  });
});
