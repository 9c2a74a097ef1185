/**
 * The command line of a launched Chrome. Pure, so tests can check exactly what
 * a cell's browser gets.
 *
 * Privacy: a fresh profile plus these flags keep Chrome from calling Google
 * (component updates, sync, time queries, GAIA, field trials…): nothing may
 * leave the machine while the lab measures it, and background requests would
 * also pollute the timings.
 */
export interface ChromeFlagOptions {
  userDataDir: string;
  /** Default true. */
  headless?: boolean;
  /** `http://127.0.0.1:PORT` of the proxy; direct when absent. */
  proxyUrl?: string;
  /** base64 SHA-256 SPKI hashes of keys Chrome should trust (the Netlens shared leaf key). */
  trustSpkiHashes?: string[];
  /** Default true; false adds `--disable-http2`. */
  http2?: boolean;
  /** Chrome runs as root only without its sandbox (containers, CI). Default: process.getuid() === 0. */
  noSandbox?: boolean;
  extraArgs?: string[];
}

/** Background features that phone home, merged into ONE --disable-features (Chrome reads only the last one). */
const DISABLED_FEATURES = [
  'NetworkTimeServiceQuerying',
  'Translate',
  'OptimizationHints',
  'MediaRouter',
  'DialMediaRouteProvider',
  'CertificateTransparencyComponentUpdater',
  'AutofillServerCommunication',
  'InterestFeedContentSuggestions',
  'PrivacySandboxSettings4',
];

export function chromeArgs(o: ChromeFlagOptions): string[] {
  const args = [
    `--user-data-dir=${o.userDataDir}`,
    '--remote-debugging-port=0',
    '--remote-debugging-address=127.0.0.1',
    // DevTools also on fds 3/4, which launch.ts holds open and never uses: when our
    // process dies, even by SIGKILL, the pipe closes and Chrome exits with it.
    '--remote-debugging-pipe',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-extensions',
    '--disable-pings',
    '--disable-quic', // QUIC would bypass the TCP proxy and Nagle entirely
    '--disable-domain-reliability',
    '--disable-client-side-phishing-detection',
    '--disable-default-apps',
    '--metrics-recording-only',
    '--password-store=basic',
    '--use-mock-keychain',
    '--mute-audio',
    // Keep timers and renderers at full speed: a throttled tab measures the throttle.
    '--disable-background-timer-throttling',
    '--disable-renderer-backgrounding',
    '--disable-backgrounding-occluded-windows',
    `--disable-features=${DISABLED_FEATURES.join(',')}`,
    // Point the remaining Google endpoints at a closed local port.
    '--gaia-url=http://127.0.0.1:9',
    '--component-updater=url-source=http://127.0.0.1:9/',
  ];
  if (o.headless ?? true) args.push('--headless', '--disable-gpu');
  if (o.noSandbox ?? process.getuid?.() === 0) args.push('--no-sandbox');
  if (o.proxyUrl) {
    const u = new URL(o.proxyUrl);
    args.push(`--proxy-server=${u.protocol}//${u.host}`);
    // Chrome never proxies loopback unless told to: the test site is on 127.0.0.1.
    args.push('--proxy-bypass-list=<-loopback>');
  }
  if (o.trustSpkiHashes?.length) args.push(`--ignore-certificate-errors-spki-list=${o.trustSpkiHashes.join(',')}`);
  if (o.http2 === false) args.push('--disable-http2');
  args.push(...(o.extraArgs ?? []));
  args.push('about:blank');
  return args;
}
