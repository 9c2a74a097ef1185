import type { MatchInput } from './types.js';

/**
 * A request's fields read once per request (URL getters and lower-casing are the costly part
 * of matching; 100 rules would otherwise repeat them 100 times).
 */
export class RequestView {
  readonly method: string;
  readonly protocol: string;
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly hrefLower: string;
  private headerMap: Map<string, string> | undefined;
  private parsed: { value: unknown } | null | undefined;
  constructor(readonly input: MatchInput) {
    const u = input.url;
    this.method = input.method.toUpperCase();
    this.protocol = u.protocol;
    this.host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    this.port = u.port ? Number(u.port) : this.protocol === 'https:' || this.protocol === 'wss:' ? 443 : 80;
    this.path = u.pathname;
    this.hrefLower = u.href.toLowerCase();
  }
  /** The body parsed as JSON, once for all rules; null when there is none, it was too large, or it is not JSON. */
  json(): { value: unknown } | null {
    if (this.parsed === undefined) {
      const b = this.input.body;
      try {
        this.parsed = b && b.length ? { value: JSON.parse(b.toString('utf8')) } : null;
      } catch {
        this.parsed = null;
      }
    }
    return this.parsed;
  }
  /** The first value of a header (lower-case name). */
  header(lower: string): string | undefined {
    if (!this.headerMap) {
      this.headerMap = new Map();
      for (const [k, v] of this.input.headers) {
        const name = k.toLowerCase();
        if (!this.headerMap.has(name)) this.headerMap.set(name, v);
      }
    }
    return this.headerMap.get(lower);
  }
}
