/** Child-process entry of a lab cell's proxy (see proxy-process.ts and child-process.ts). */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { HarRecorder } from '../har/recorder.js';
import type { Exchange } from '../model.js';
import { startProxy, type ProxyHandle } from '../server/proxy-server.js';
import { serveLabChild } from './child-process.js';
import { LOOP_RESOLUTION_MS, loopDelaySummary, proxyMetrics } from './measure.js';
import type { ProxyProcessOptions, ProxyProcessResult } from './proxy-process.js';

let proxy: ProxyHandle | undefined;
let recorder: HarRecorder | undefined;
const exchanges: Exchange[] = [];
const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });

serveLabChild<ProxyProcessOptions, { url: string; port: number }, ProxyProcessResult>(
  async (options) => {
    proxy = await startProxy(options.proxy);
    proxy.events.subscribe((e) => {
      if (e.type === 'complete' || e.type === 'error') exchanges.push(e.exchange);
    });
    if (options.journal) recorder = new HarRecorder(proxy.events, { journalFile: options.journal.file, name: options.journal.name });
    loopDelay.enable();
    return { url: proxy.address.url, port: proxy.address.port };
  },
  async () => {
    loopDelay.disable();
    recorder?.stop();
    await proxy?.stop();
    return { metrics: proxyMetrics(exchanges), recorded: recorder?.stats.entries ?? 0, eventLoopDelayMs: loopDelaySummary(loopDelay) };
  },
);
