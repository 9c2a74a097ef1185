/** Child-process entry hosting the lab's proxies (see proxy-process.ts and child-process.ts). */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { HarRecorder } from '../har/recorder.js';
import { RulesHolder } from '../rules/engine.js';
import { startProxy, type ProxyHandle } from '../server/proxy-server.js';
import { serveLabChild } from './child-process.js';
import { LOOP_RESOLUTION_MS, loopDelaySummary, ProxyTally } from './measure.js';
import type { ProxyRunOptions, ProxyRunResult } from './proxy-process.js';
import { ErrorCodes } from '../errors.js';
import { useFastAsyncBind } from '../upstream/async-bind.js';

interface Run {
  proxy: ProxyHandle;
  recorder?: HarRecorder;
  /** What proxyMetrics reports of the run's exchanges, counted as they finish. */
  tally: ProxyTally;
  loopDelay: ReturnType<typeof monitorEventLoopDelay>;
}

// This process is Netlens's own (the proxy under test, as the CLI runs it): HTTP/2 upstream requests without Node's
// costly AsyncResource.bind (async-bind.ts). The WebAssembly tier flag comes on its command line (proxy-process.ts).
useFastAsyncBind();

let run: Run | undefined;

async function stopRun(): Promise<ProxyRunResult> {
  if (!run) throw Object.assign(new Error('no proxy is running'), { code: ErrorCodes.INTERNAL });
  const { proxy, recorder, tally, loopDelay } = run;
  run = undefined;
  loopDelay.disable();
  recorder?.stop();
  await proxy.stop();
  return {
    metrics: tally.metrics(proxy.timeline?.toLog()._connections),
    recorded: recorder?.stats.entries ?? 0,
    eventLoopDelayMs: loopDelaySummary(loopDelay),
  };
}

serveLabChild<Record<string, never>, Record<string, never>, undefined>(
  async () => ({}),
  async () => {
    if (run) await stopRun();
    return undefined;
  },
  {
    'run-start': async (options: ProxyRunOptions) => {
      if (run) await stopRun(); // a run the parent never stopped (it failed): its proxy must not linger
      // Variant cells: the rules arrive as the validated object (read once by the parent, never per run).
      let rules: RulesHolder | undefined;
      if (options.rules) {
        rules = new RulesHolder();
        rules.set(options.rules.file, options.rules.baseDir);
      }
      const proxy = await startProxy({ ...options.proxy, ...(rules ? { rules } : {}) });
      // Each finished exchange is counted and let go (measure.ts ProxyTally): the run keeps no exchange.
      const tally = new ProxyTally();
      proxy.events.subscribe((e) => {
        if (e.type === 'complete' || e.type === 'error') tally.add(e.exchange);
      });
      const recorder = options.journal
        ? new HarRecorder(proxy.events, { journalFile: options.journal.file, name: options.journal.name, timeline: proxy.timeline })
        : undefined;
      const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
      loopDelay.enable();
      run = { proxy, recorder, tally, loopDelay };
      return { url: proxy.address.url, port: proxy.address.port };
    },
    'run-stop': stopRun,
  },
);
