/**
 * Content types of the built renderer's files, shared by the two hosts that serve
 * them (`netlens serve` over HTTP, Electron's app:// protocol) so both label a file
 * the same way. Anything else is application/octet-stream, which `nosniff` keeps inert.
 */
import path from 'node:path';

const BY_EXTENSION: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

export function contentTypeFor(file: string): string {
  return BY_EXTENSION[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}
