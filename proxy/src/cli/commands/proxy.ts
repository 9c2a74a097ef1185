import path from 'node:path';
import { startProxy } from '../../server/proxy-server.js';
import { DEFAULT_BODY_CAPTURE_LIMIT } from '../../options.js';
import { SessionStore } from '../../sessions/store.js';
import type { ProxyEvent } from '../../model.js';
import { EXIT_OK, intFlag, type CliCommand } from '../command.js';
import { trustInstructions } from '../../tls/trust.js';
import { formatExchangeLine } from '../format.js';
import { dataDirFlag, insecureFlag, relayFlag, upstreamCAFlag } from '../flags.js';
import { plural } from '../format.js';
import { rulesFlag, rulesHelp } from '../rules-flag.js';

export const proxyCommand: CliCommand = {
  name: 'proxy',
  summary: 'run the intercepting proxy and print one line per exchange',
  help: `Usage: netlens proxy [flags]

Starts the HTTP/HTTPS proxy (explicit proxy: absolute-form HTTP and CONNECT),
prints its address, the CA certificate and how to trust it, then one line per
exchange. Ctrl-C stops it.

Flags:
  --port N          port to listen on (default 8080; 0 = any free port)
  --host H          interface (default 127.0.0.1; other interfaces still refuse
                    non-loopback clients unless --allow-remote)
  --allow-remote    accept clients that are not on loopback (never do this on an untrusted network)
  --no-intercept    CONNECT is a blind TCP tunnel (no TLS termination, nothing recorded inside)
  --no-http2        HTTP/1.1 on both legs
  --nagle           leave Nagle's algorithm on for every proxy socket (for comparison)
  --relay MODE      how responses are written to HTTP/1.1 clients: coalesce (default: the head
                    leaves with the body) or naive (the head alone, then each upstream chunk as it
                    comes, as a simple proxy relays; with --nagle, see docs/lab.md)
  --data-dir DIR    data directory (CA, sessions); default $NETLENS_DATA_DIR or ~/.local/share/netlens
  --upstream-ca F   also trust this CA (PEM) for upstream TLS; repeatable
  --insecure        do not verify upstream certificates (testing only)
  --quiet           do not print a line per exchange
  --har FILE        record the session: every finished exchange is appended to a journal
                    in the data directory as it completes, and FILE gets the HAR 1.2 when
                    the proxy stops (the session is also kept: netlens sessions list)
  --body-limit N    bytes of each request/response body kept for the HAR (default 4 MiB; 0 = none)
${rulesHelp(20)}

Examples:
  netlens proxy --port 8080
  curl -x http://127.0.0.1:8080 --cacert "$(netlens ca --json | jq -r .certPath)" https://example.com/
`,
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'allow-remote': { type: 'boolean' },
    'no-intercept': { type: 'boolean' },
    'no-http2': { type: 'boolean' },
    nagle: { type: 'boolean' },
    relay: { type: 'string' },
    'data-dir': { type: 'string' },
    'upstream-ca': { type: 'string', multiple: true },
    insecure: { type: 'boolean' },
    quiet: { type: 'boolean' },
    har: { type: 'string' },
    'body-limit': { type: 'string' },
    rules: { type: 'string' },
  },
  maxPositionals: 0,
  async run({ values, stdout, stderr, env, stopSignal }) {
    const port = intFlag(values, 'port', 8080, 0, 65535);
    const dataDir = dataDirFlag(values, env);
    const upstreamCA = upstreamCAFlag(values);
    const rules = rulesFlag(values, stderr);
    const relay = relayFlag(values);
    const proxy = await startProxy({
      rules: rules?.holder,
      port,
      host: (values.host as string | undefined) ?? '127.0.0.1',
      allowRemoteClients: Boolean(values['allow-remote']),
      intercept: !values['no-intercept'],
      http2: !values['no-http2'],
      nagle: Boolean(values.nagle),
      relay,
      dataDir,
      upstreamCA,
      insecureUpstream: insecureFlag(values, stderr),
      bodyCaptureLimit: intFlag(values, 'body-limit', DEFAULT_BODY_CAPTURE_LIMIT, 0),
    });
    const harFile = values.har ? path.resolve(String(values.har)) : undefined;
    const recording = harFile
      ? await new SessionStore(dataDir).startRecording(proxy.events, {
          name: path.basename(harFile).replace(/\.har$/i, ''),
          onError: (err) => stderr.write(`netlens: could not record an exchange: ${err.message}\n`),
          timeline: proxy.timeline,
        })
      : undefined;
    const s = proxy.settings;
    stdout.write(`Netlens proxy listening on ${proxy.address.url}\n`);
    const relayNote = relay === 'naive' ? ' · relay naive' : '';
    const nagleNote = `Nagle ${s.nagle ? 'on' : 'off'}${relayNote}`;
    stdout.write(`  intercept ${s.intercept ? 'on' : 'off'} · HTTP/2 ${s.http2 ? 'on' : 'off'} · ${nagleNote} · data ${s.dataDir}\n`);
    stdout.write(`CA certificate: ${proxy.ca.certPath}\n`);
    if (recording) stdout.write(`Recording to ${recording.recorder.journalFile}; the HAR goes to ${harFile} on stop\n`);
    stdout.write(trustInstructions(proxy.ca.certPath, proxy.ca.leafSpkiHash, proxy.address) + '\n\n');
    if (!values.quiet) {
      proxy.events.subscribe((e: ProxyEvent) => {
        if (e.type === 'complete' || e.type === 'error') stdout.write(formatExchangeLine(e.exchange) + '\n');
      });
    }
    const sig = await stopSignal;
    stderr.write(`\n${sig}: stopping proxy…\n`);
    await proxy.stop();
    rules?.close();
    if (recording && harFile) {
      const info = await recording.stop();
      const written = await new SessionStore(dataDir).exportTo(info.id, harFile);
      stderr.write(`HAR: ${plural(written.entries, 'entry', 'entries')} written to ${harFile} (session ${info.id})\n`);
    }
    return EXIT_OK;
  },
};
