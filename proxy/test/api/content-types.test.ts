import { describe, expect, it } from 'vitest';
import { contentTypeFor } from '../../src/api/content-types.js';

describe('contentTypeFor (shared by serve and the Electron app:// protocol)', () => {
  it('labels the renderer build files by extension, case-insensitively', () => {
    expect(contentTypeFor('/x/index.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeFor('/x/assets/index-abc.JS')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeFor('/x/a.mjs')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeFor('a.woff2')).toBe('font/woff2');
  });
  it('falls back to octet-stream for unknown or missing extensions', () => {
    expect(contentTypeFor('/x/file.exe')).toBe('application/octet-stream');
    expect(contentTypeFor('/x/Makefile')).toBe('application/octet-stream');
    expect(contentTypeFor('/x/.html.bak')).toBe('application/octet-stream');
  });
});
