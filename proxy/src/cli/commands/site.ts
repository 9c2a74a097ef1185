import path from 'node:path';
import { defaultDataDir } from '../../options.js';
import { loadOrCreateCA } from '../../tls/ca.js';
import { startTestSite } from '../../lab/site/test-site.js';
import { EXIT_OK, intFlag, type CliCommand } from '../command.js';

export const siteCommand: CliCommand = {
  name: 'site',
  summary: 'serve the built-in test site (HTTPS, HTTP/2 + HTTP/1.1, a page of N images)',
  help: `Usage: netlens site [flags]

Serves the lab's test page on 127.0.0.1: HTTPS with a certificate from the
Netlens CA, HTTP/2 and HTTP/1.1 by ALPN. The page has N distinct images, a
stylesheet and a script of tens of KiB sent in many small writes, and a chunked
script. Latency makes protocol effects visible on loopback. Ctrl-C stops it.

Flags:
  --port N           port (default 0 = any free port)
  --images N         images on the page (default 1000)
  --latency MS       delay before every response (default 0)
  --conn-latency MS  delay before every new connection's TLS handshake (default: --latency)
  --plain            plain HTTP/1.1 instead of HTTPS
  --data-dir DIR     data directory holding the CA (default $NETLENS_DATA_DIR or ~/.local/share/netlens)

Chrome trusts the site without a blanket --ignore-certificate-errors:
  chromium --ignore-certificate-errors-spki-list=<hash printed below> https://127.0.0.1:PORT/

Examples:
  netlens site --images 100 --latency 20
  curl --cacert "$(netlens ca --json | jq -r .certPath)" https://127.0.0.1:PORT/
`,
  options: {
    port: { type: 'string' },
    images: { type: 'string' },
    latency: { type: 'string' },
    'conn-latency': { type: 'string' },
    plain: { type: 'boolean' },
    'data-dir': { type: 'string' },
  },
  maxPositionals: 0,
  async run({ values, stdout, stderr, env, stopSignal }) {
    const port = intFlag(values, 'port', 0, 0, 65535);
    const images = intFlag(values, 'images', 1000, 0, 100_000);
    const latencyMs = intFlag(values, 'latency', 0, 0, 60_000);
    const connectionLatencyMs = intFlag(values, 'conn-latency', latencyMs, 0, 60_000);
    const dataDir = values['data-dir'] ? path.resolve(String(values['data-dir'])) : defaultDataDir(env);
    const plain = Boolean(values.plain);
    const ca = plain ? undefined : loadOrCreateCA(dataDir);
    const site = await startTestSite({ port, images, latencyMs, connectionLatencyMs, tls: !plain, ca, dataDir });
    stdout.write(`Netlens test site: ${site.url}\n`);
    stdout.write(
      `  ${images} images · ${site.expectedRequests} requests per page load · latency ${latencyMs} ms/response, ${connectionLatencyMs} ms/connection · ${plain ? 'plain HTTP/1.1' : 'HTTPS, h2 + http/1.1'}\n`,
    );
    if (ca) {
      stdout.write(`  certificate issued by the Netlens CA (${ca.certPath})\n`);
      stdout.write(`  Chrome: --ignore-certificate-errors-spki-list=${ca.leafSpkiHash}\n`);
    }
    const sig = await stopSignal;
    stderr.write(`\n${sig}: stopping the test site (${site.stats.requests} requests on ${site.stats.connections} connections served)\n`);
    await site.close();
    return EXIT_OK;
  },
};
