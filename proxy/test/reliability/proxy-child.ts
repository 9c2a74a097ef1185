/**
 * Entry for a proxy run as a child process (`node --import tsx proxy-child.ts DATA_DIR [--no-http2]`),
 * so a crash shows as a dead process rather than a failed test in the same process.
 * Prints one JSON line with the port and the CA certificate path; counts exchanges
 * and prints `{"stats":…}` when asked on stdin ("stats\n").
 */
import { startProxy } from '../../src/server/proxy-server.js';

const dataDir = process.argv[2];
if (!dataDir) {
  process.stderr.write('usage: proxy-child.ts DATA_DIR [--no-http2]\n');
  process.exit(2);
}
const proxy = await startProxy({ port: 0, dataDir, http2: !process.argv.includes('--no-http2') });
const stats = { complete: 0, error: 0, warnings: 0 };
proxy.events.subscribe((e) => {
  if (e.type === 'complete') stats.complete++;
  else if (e.type === 'error') stats.error++;
});
process.on('warning', (w) => {
  stats.warnings++;
  process.stderr.write(`warning: ${w.stack ?? w.message}\n`);
});
// Event-loop stalls make a client's answer late; report them (stderr) so a slow run can be told from a bug.
let tick = Date.now();
setInterval(() => {
  const lag = Date.now() - tick - 100;
  if (lag > 300) process.stderr.write(`event loop stalled ${lag} ms\n`);
  tick = Date.now();
}, 100).unref();
process.stdout.write(`${JSON.stringify({ port: proxy.address.port, caCert: proxy.ca.certPath })}\n`);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line: string) => {
  if (line.includes('stats')) process.stdout.write(`${JSON.stringify({ stats })}\n`);
});
// stdin closing (the parent went away) stops the proxy: no orphan processes after a killed test run.
process.stdin.on('end', () => void proxy.stop().then(() => process.exit(0)));
