/** Shared setup for rules tests: a proxy with a rules holder, origins that echo what they received. */
import http from 'node:http';
import type http2 from 'node:http2';
import { RulesHolder } from '../../src/rules/engine.js';
import { validateRules } from '../../src/rules/validate.js';
import type { Rule } from '../../src/rules/types.js';
import { exchangeToEntry } from '../../src/har/entry.js';
import type { Exchange } from '../../src/model.js';
import type { Handler } from '../proxy/harness.js';

export function holderWith(rules: Rule[]): RulesHolder {
  const h = new RulesHolder();
  h.set(validateRules({ version: 1, rules }));
  return h;
}

/** Echoes what the origin received: method, path, headers (lower-cased names), body. */
export const mirror: Handler = (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (!k.startsWith(':')) headers[k] = String(v);
    const body = JSON.stringify({ method: req.method, url: req.url, headers, body: Buffer.concat(chunks).toString('utf8') });
    if (req.url?.startsWith('/html')) {
      res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'max-age=600', etag: '"e"' });
      res.end('<html><head><title>t</title></head><body>x</body></html>');
      return;
    }
    if (req.url?.startsWith('/big')) {
      const size = Number(new URL(req.url, 'http://x').searchParams.get('size') ?? 1024 * 1024);
      (res as http.ServerResponse).writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) });
      res.end(Buffer.alloc(size, 7));
      return;
    }
    (res as http.ServerResponse | http2.Http2ServerResponse).writeHead(200, {
      'content-type': 'application/json',
      'cache-control': 'max-age=60',
    });
    res.end(body);
  });
};

export const harOf = (x: Exchange) => exchangeToEntry(x) as unknown as Record<string, unknown>;
