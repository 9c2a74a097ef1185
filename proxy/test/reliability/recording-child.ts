/**
 * A recording proxy in its own process, as `netlens proxy --har` runs it
 * (startProxy + SessionStore.startRecording), for the kill -9 test and the soak
 * (bench/soak/soak.ts). Argument: the data directory. Over IPC it sends
 * {ready, port, pid, journal, certPath}; answers 'stats' with memory and fds;
 * on 'stop' stops the proxy and the recording, answers with the times and the
 * session's HAR path, and exits.
 */
import fs from 'node:fs';
import { startProxy } from '../../src/server/proxy-server.js';
import { SessionStore } from '../../src/sessions/store.js';

const dataDir = process.argv[2]!;
const proxy = await startProxy({ port: 0, dataDir, intercept: true, http2: true });
const store = new SessionStore(dataDir);
const recording = await store.startRecording(proxy.events, {
  name: 'reliability',
  onError: (err) => process.stderr.write(`record error: ${err.message}\n`),
});

function fds(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

process.on('message', async (m: string) => {
  if (m === 'stats') {
    const mem = process.memoryUsage();
    process.send!({
      stats: { rss: mem.rss, heapUsed: mem.heapUsed, external: mem.external, fds: fds(), entries: recording.recorder.stats.entries },
    });
    return;
  }
  if (m === 'stop') {
    const t0 = performance.now();
    await proxy.stop();
    const t1 = performance.now();
    const info = await recording.stop();
    const t2 = performance.now();
    const { failed } = recording.recorder.stats;
    const stopped = { proxyStopMs: t1 - t0, recordingStopMs: t2 - t1, entries: info.entryCount, failed, harFile: store.harPath(info.id) };
    process.send!({ stopped }, () => process.exit(0));
  }
});
process.send!({
  ready: true,
  port: proxy.address.port,
  pid: process.pid,
  journal: recording.recorder.journalFile,
  certPath: proxy.ca.certPath,
});
