/**
 * Memory per intercepted host is bounded (issue 13 item 7). A child process
 * (--expose-gc, so RSS is what is retained) intercepts N distinct host names and
 * idles; RSS growth must stay under 64 MiB. N is 2,000 in `npm test` (the caches
 * fill at 256 hosts, so this already shows the plateau; the old per-host TLS
 * servers grew 146 KiB per host, 285 MiB for 2,000); NETLENS_LIFECYCLE_HOSTS=10000
 * for the full figure.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateCA, tempDataDir } from '../proxy/harness.js';
import { LruMap } from '../../src/tls/lru.js';

const HOSTS = Number(process.env.NETLENS_LIFECYCLE_HOSTS ?? 2000);
const LIMIT_MIB = 64;

describe('per-host memory', () => {
  it(`${HOSTS} distinct intercepted hosts retain < ${LIMIT_MIB} MiB after idle`, { timeout: 600_000 }, async () => {
    const child = path.join(import.meta.dirname, 'lifecycle-memory-child.ts');
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', child, String(HOSTS), tempDataDir()],
        { timeout: 580_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      );
    });
    const r = JSON.parse(out.trim().split('\n').pop()!) as {
      growthMiB: number;
      perHostKiB: number;
      beforeMiB: number;
      afterMiB: number;
      seconds: number;
    };
    const growth = `+${r.growthMiB} MiB, ${r.perHostKiB} KiB/host`;
    console.log(`[lifecycle-memory] ${HOSTS} hosts: RSS ${r.beforeMiB} → ${r.afterMiB} MiB (${growth}) in ${r.seconds} s`);
    expect(r.growthMiB).toBeLessThan(LIMIT_MIB);
  });

  it('the CA keeps at most limitHostCache hosts, least recently used dropped first', () => {
    const ca = loadOrCreateCA(tempDataDir());
    ca.limitHostCache(3);
    const first = ca.secureContext('a.test');
    ca.secureContext('b.test');
    ca.secureContext('c.test');
    expect(ca.secureContext('a.test')).toBe(first); // a hit refreshes a
    ca.secureContext('d.test'); // evicts b, the least recently used
    expect(ca.secureContext('a.test')).toBe(first);
    const creds = ca.hostCredentials('e.test');
    for (const h of ['f.test', 'g.test', 'h.test']) ca.hostCredentials(h);
    expect(ca.hostCredentials('e.test')).not.toBe(creds); // evicted, signed again
  });

  it('LruMap: bounded, ordered by use, refuses a size below 1', () => {
    const m = new LruMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    m.get('a');
    m.set('c', 3);
    expect([m.get('a'), m.get('b'), m.get('c'), m.size]).toEqual([1, undefined, 3, 2]);
    m.resize(1);
    expect(m.size).toBe(1);
    expect(() => new LruMap(0)).toThrow(RangeError);
    expect(() => m.resize(Number.NaN)).toThrow(RangeError);
  });
});
