import { describe, expect, it } from 'vitest';
import { trustInstructions } from '../../src/tls/trust.js';

describe('trustInstructions', () => {
  it('names the address it is given, not a fixed one', () => {
    const text = trustInstructions('/data/ca.pem', 'SPKI=', { host: '127.0.0.1', port: 9123 });
    expect(text).toContain('curl -x http://127.0.0.1:9123 --cacert "/data/ca.pem" https://example.com/');
    expect(text).not.toContain('8080');
    expect(text).toContain('--ignore-certificate-errors-spki-list=SPKI=');
  });
});
