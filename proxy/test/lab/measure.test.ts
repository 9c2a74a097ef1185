import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loopDelaySummary, ProxyTally, proxyMetrics } from '../../src/lab/measure.js';
import { mean } from '../../src/lab/stats.js';
import type { Exchange } from '../../src/model.js';
import { makeExchange } from '../har/make-exchange.js';

const withWait = (wait: number, over: Partial<Exchange> = {}): Exchange => {
  const x = makeExchange(over);
  x.timings = { ...x.timings, wait };
  return x;
};

describe('ProxyTally (what the lab reports of the proxy in one run)', () => {
  it('counts exchanges, errors, upstream connections and protocols, and averages the waits of intercepted and plain exchanges', () => {
    const xs = [
      withWait(10.5, { upstreamConnectionId: 'u1', upstreamProtocol: 'h2' }),
      withWait(20.25, { upstreamConnectionId: 'u1', upstreamProtocol: 'h2' }),
      withWait(7, { upstreamConnectionId: 'u2', upstreamProtocol: 'http/1.1', transport: 'plain' }),
      // A tunnel's wait is not an upstream wait; -1 is "not measured" (HAR); an error counts.
      withWait(500, { upstreamConnectionId: 'u3', transport: 'tunnel', upstreamProtocol: undefined }),
      withWait(-1, {
        upstreamConnectionId: undefined,
        upstreamProtocol: undefined,
        error: { code: 'NL_X', message: 'x', side: 'upstream' },
      }),
    ];
    const tally = new ProxyTally();
    for (const x of xs) tally.add(x);
    expect(tally.metrics()).toEqual({
      exchanges: 5,
      errors: 1,
      upstreamConnections: 3,
      upstreamWaitMeanMs: mean([10.5, 20.25, 7]),
      protocols: { h2: 2, 'http/1.1': 1 },
    });
    expect(proxyMetrics(xs)).toEqual(tally.metrics());
    // The report is a copy: exchanges counted after it do not change it.
    const first = tally.metrics();
    tally.add(withWait(1, { upstreamProtocol: 'h2' }));
    expect(first.protocols).toEqual({ h2: 2, 'http/1.1': 1 });
    expect(tally.metrics().protocols).toEqual({ h2: 3, 'http/1.1': 1 });
  });

  it('reports no mean wait for a run without exchanges', () => {
    expect(new ProxyTally().metrics()).toEqual({
      exchanges: 0,
      errors: 0,
      upstreamConnections: 0,
      upstreamWaitMeanMs: undefined,
      protocols: {},
    });
  });

  it('keeps no exchange it counted (the lab’s proxy process must not hold a run’s exchanges and their bodies)', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const tally = new ProxyTally();
    // Made and counted in a function of their own, so no variable of this one holds the last of them.
    const count = (): WeakRef<Exchange>[] =>
      Array.from({ length: 20 }, (_, i) => {
        const x = withWait(i, { upstreamConnectionId: `u${i % 3}`, upstreamProtocol: 'h2' });
        tally.add(x);
        return new WeakRef(x);
      });
    const refs = count();
    // WeakRef targets survive until the end of the job that made them: let it end, then collect.
    await new Promise((r) => setImmediate(r));
    gc();
    expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
    expect(tally.metrics()).toMatchObject({ exchanges: 20, upstreamConnections: 3 });
  });
});

describe('loopDelaySummary', () => {
  it("reports no lag for a run shorter than the monitor's interval (no sample), and the lag beyond the interval otherwise", async () => {
    const h = monitorEventLoopDelay({ resolution: 10 });
    expect(loopDelaySummary(h)).toBeUndefined();
    h.enable();
    await new Promise((r) => setTimeout(r, 60));
    h.disable();
    const s = loopDelaySummary(h)!;
    expect(s.max).toBeGreaterThanOrEqual(s.p99);
    expect(s.p99).toBeGreaterThanOrEqual(s.p50);
    expect(s.p50).toBeGreaterThanOrEqual(0);
  });
});
