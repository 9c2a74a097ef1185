/**
 * Throttling accuracy: a 1 MiB download through a 1.6 Mbit/s profile (plus 300 ms latency)
 * must take what bandwidth + latency predict, ±15% (~5.5 s). Upload throttling slows a POST body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, httpOrigin, httpsOrigin, loadOrCreateCA, tempDataDir, testProxy, type Origin, type TestProxy } from '../proxy/harness.js';
import { PROFILES } from '../../src/rules/profiles.js';
import { holderWith, mirror } from './rules-harness.js';

let origin: Origin;
let h2: Origin;
let tp: TestProxy;
const dataDir = tempDataDir();
const ca = loadOrCreateCA(dataDir);

beforeAll(async () => {
  origin = await httpOrigin(mirror);
  h2 = await httpsOrigin(ca, { h2: true }, mirror);
  tp = await testProxy({
    dataDir,
    rules: holderWith([
      { id: 'down', match: { query: { t: 'down' } }, actions: [{ type: 'throttle', profile: '1.6mbps', latencyMs: 300 }] },
      { id: 'up', match: { query: { t: 'up' } }, actions: [{ type: 'throttle', uploadKbps: 1600 }] },
    ]),
  });
});
afterAll(async () => {
  await tp.stop();
  await origin.close();
  await h2.close();
});

const seconds = async (args: string[]) => {
  const r = await curl(['-x', tp.proxy.address.url, '-o', '/dev/null', '-w', '%{time_total} %{size_download}', ...args], 30_000);
  const [t, size] = r.stdout.split(' ');
  return { t: Number(t), size: Number(size) };
};

describe('throttle', () => {
  it('a 1 MiB download through 1.6 Mbit/s + 300 ms takes bytes/rate + latency, ±15%', async () => {
    const bytes = 1024 * 1024;
    const base = await seconds([`${origin.url}/big?size=${bytes}`]);
    const slow = await seconds([`${origin.url}/big?size=${bytes}&t=down`]);
    const predicted = bytes / PROFILES['1.6mbps']!.downloadBps + 0.3;
    expect(slow.size).toBe(bytes);
    expect(base.t).toBeLessThan(1);
    // The throttle sets a floor (it never sends early); what the machine adds on top is what the
    // same request takes unthrottled, so the ceiling allows for that (a loaded CI machine).
    expect(slow.t).toBeGreaterThan(predicted * 0.85);
    expect(slow.t - base.t).toBeLessThan(predicted * 1.15);
  }, 20_000);

  it('throttles HTTP/2 inside an intercepted tunnel too (256 KiB, within ±15%)', async () => {
    const bytes = 256 * 1024;
    const args = ['--http2', '--cacert', ca.certPath];
    const base = await seconds([...args, `${h2.url}/big?size=${bytes}`]);
    const slow = await seconds([...args, `${h2.url}/big?size=${bytes}&t=down`]);
    const predicted = bytes / PROFILES['1.6mbps']!.downloadBps + 0.3;
    expect(slow.size).toBe(bytes);
    expect(slow.t).toBeGreaterThan(predicted * 0.85);
    expect(slow.t - base.t).toBeLessThan(predicted * 1.15);
  });

  it('limits the upload of a request body', async () => {
    const body = 'x'.repeat(100_000); // 0.5 s at 1.6 Mbit/s
    const base = await seconds(['--data-binary', body, `${origin.url}/echo`]);
    const slow = await seconds(['--data-binary', body, `${origin.url}/echo?t=up`]);
    expect(slow.t - base.t).toBeGreaterThan(0.4);
  });
});
