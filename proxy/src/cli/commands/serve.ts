import path from 'node:path';
import { CoreService } from '../../api/core-service.js';
import { startHttpTransport } from '../../api/http-transport.js';
import { coreBackends } from '../../api/wiring.js';
import { EXIT_OK, intFlag, type CliCommand } from '../command.js';
import { appPaths } from '../../app-paths.js';
import { dataDirFlag, insecureFlag, upstreamCAFlag } from '../flags.js';
import { openInBrowser } from '../open-url.js';
import { rulesFlag, rulesHelp } from '../rules-flag.js';
import { ErrorCodes, isErrorCode } from '../../errors.js';

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'serve the Netlens UI and API on 127.0.0.1 (open the printed URL in a browser)',
  help: `Usage: netlens serve [flags]

Hosts the Netlens user interface and its API on 127.0.0.1 and starts the proxy.
Open the printed URL: it carries a random token made for this launch, and
requests without it (or from other web sites) are refused.

Flags:
  --port N          port of the UI/API (default 0 = any free port)
  --open            open the URL in the default browser (says so when it cannot:
                    no display, no xdg-open; then open the printed URL yourself)
  --proxy-port N    port of the proxy (default 8080; 0 = any free port)
  --no-proxy        do not start the proxy at launch (start it from the UI)
  --no-intercept    proxy: CONNECT is a blind tunnel
  --no-http2        proxy: HTTP/1.1 on both legs
  --nagle           proxy: leave Nagle's algorithm on
  --data-dir DIR    data directory (CA, sessions); default $NETLENS_DATA_DIR or ~/.local/share/netlens
  --upstream-ca F   proxy: also trust this CA (PEM) upstream; repeatable
  --insecure        proxy: do not verify upstream certificates (testing only)
  --renderer-dir D  serve the UI from D instead of dist/renderer
${rulesHelp(20)}

Examples:
  netlens serve --open
  netlens serve --port 7070 --proxy-port 0
`,
  options: {
    port: { type: 'string' },
    open: { type: 'boolean' },
    'proxy-port': { type: 'string' },
    'no-proxy': { type: 'boolean' },
    'no-intercept': { type: 'boolean' },
    'no-http2': { type: 'boolean' },
    nagle: { type: 'boolean' },
    'data-dir': { type: 'string' },
    'upstream-ca': { type: 'string', multiple: true },
    insecure: { type: 'boolean' },
    'renderer-dir': { type: 'string' },
    rules: { type: 'string' },
  },
  maxPositionals: 0,
  async run({ values, stdout, stderr, env, stopSignal }) {
    const fs = await import('node:fs');
    const port = intFlag(values, 'port', 0, 0, 65535);
    const proxyPort = intFlag(values, 'proxy-port', 8080, 0, 65535);
    const dataDir = dataDirFlag(values, env);
    const rendererDir = values['renderer-dir'] ? path.resolve(String(values['renderer-dir'])) : appPaths().rendererDir;
    // Read once here for the CLI's usage error; the core keeps the paths (Settings shows and edits them).
    upstreamCAFlag(values);
    const upstreamCAFiles = ((values['upstream-ca'] as string[] | undefined) ?? []).map((f) => path.resolve(f));

    const rules = rulesFlag(values, stderr);
    const service = new CoreService({
      dataDir,
      version: appPaths().version,
      proxy: {
        port: proxyPort,
        intercept: !values['no-intercept'],
        http2: !values['no-http2'],
        nagle: Boolean(values.nagle),
        upstreamCAFiles,
        insecureUpstream: insecureFlag(values, stderr),
      },
      ...(await coreBackends(dataDir)),
      ...(rules ? { proxyExtras: { rules: rules.holder } } : {}),
    });
    if (!values['no-proxy']) {
      try {
        const status = await service.startProxy();
        stdout.write(`Proxy listening on ${status.address?.url}\n`);
      } catch (err) {
        // The UI shows the error and lets the user pick another port.
        const e = err as Error & { code?: string };
        const code = isErrorCode(e.code) ? ` [${e.code}]` : '';
        // The proxy's own message names `netlens proxy`'s --port; here --port is the UI's port.
        const message =
          e.code === ErrorCodes.PORT_IN_USE
            ? `the proxy cannot listen: port ${proxyPort} on 127.0.0.1 is already in use. Stop the other program, or run again with --proxy-port N ` +
              `(--proxy-port 0 for any free port), or pick another port in the UI and start it there`
            : `${e.message} — fix that, then start it from the UI`;
        stderr.write(`netlens serve: ${message}${code}.\n`);
      }
    }
    if (!fs.existsSync(path.join(rendererDir, 'index.html'))) {
      stderr.write(`netlens serve: the UI is not built (${rendererDir} has no index.html). Run "npm run build" first.\n`);
    }
    const ca = (await service.getStatus()).proxy.ca;
    if (ca) stdout.write(`CA certificate: ${ca.certPath} (trust it to inspect HTTPS; "netlens ca" shows how)\n`);
    const transport = await startHttpTransport({ service, port, staticDir: rendererDir });
    stdout.write(`Netlens UI: ${transport.url}\n`);
    if (values.open) {
      const why = await openInBrowser(transport.url, env);
      if (why)
        stderr.write(`netlens serve: --open: no browser was opened: ${why}. Open the "Netlens UI" URL above in a browser yourself.\n`);
    }

    const sig = await stopSignal;
    stderr.write(`\n${sig}: stopping…\n`);
    await transport.close();
    await service.close();
    rules?.close();
    return EXIT_OK;
  },
};
