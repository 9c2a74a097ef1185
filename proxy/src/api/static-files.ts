/**
 * The built renderer (dist/renderer) as `netlens serve` hosts it. The page and
 * its assets hold no secret, so they are served without the token (a reload of
 * the token-less address must work); the page itself reads the token once from
 * `?token=` (renderer/src/api.ts).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { decodePath } from './request-target.js';
import { sendText } from './http-replies.js';
import { contentTypeFor } from './content-types.js';

/** The page's Content-Security-Policy: only our own scripts, styles and sockets; no forms, frames or <base>. */
export function pageCsp(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function serveStatic(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  rawPath: string,
  staticDir: string | undefined,
  port: number,
): void {
  // A malformed path is the client's error whether or not the UI is built: 400 first.
  const isPage = rawPath === '/' || rawPath === '/index.html';
  const decoded = isPage ? '/index.html' : decodePath(rawPath);
  if (decoded === undefined) return sendText(res, 400, 'Bad request: the path is not a valid percent-encoded file name.');
  if (!staticDir || !fs.existsSync(path.join(staticDir, 'index.html'))) {
    return sendText(res, 503, 'The Netlens renderer is not built. Run "npm run build", then reload this page.');
  }
  const file = path.resolve(staticDir, decoded.replace(/^\/+/, ''));
  let stat: fs.Stats | undefined;
  try {
    stat = file.startsWith(staticDir + path.sep) ? fs.statSync(file, { throwIfNoEntry: false }) : undefined;
  } catch {
    stat = undefined; // ENAMETOOLONG, ENOTDIR, EACCES: not a file we serve
  }
  if (!stat?.isFile()) return sendText(res, 404, 'Not found');
  const headers: http.OutgoingHttpHeaders = {
    'content-type': contentTypeFor(file),
    'content-length': stat.size,
    'x-content-type-options': 'nosniff',
    // The first page load's address carries the token: never send it on as a Referer.
    'referrer-policy': 'no-referrer',
    'cache-control': isPage ? 'no-store' : 'private, max-age=3600',
  };
  if (isPage) headers['content-security-policy'] = pageCsp(port);
  if (req.method === 'HEAD') {
    res.writeHead(200, headers);
    res.end();
    return;
  }
  // A file removed between stat and read (a rebuild while serving) must not throw: pipeline reports it here.
  const stream = fs.createReadStream(file);
  stream.once('open', () => res.writeHead(200, headers));
  pipeline(stream, res, (err) => {
    if (err && !res.headersSent) sendText(res, 404, 'Not found');
    else if (err) res.destroy();
  });
}
