/**
 * Warms the lab's proxy process up before its first measured page load: a few
 * thousand image requests, with a browser's request headers, through a proxy
 * (one per proxy setting the lab runs) to the built-in test site, all outside
 * any measured run.
 *
 * Why: the lab keeps one proxy process for all runs so that it measures a proxy
 * as users run it, long-lived, its code compiled by V8's optimizing tier
 * (proxy-process.ts). But V8 optimizes a function only after many calls, and a
 * cell's first runs were most of its runs: for issue 17, with no warm-up, the
 * proxy's main thread spent 230, 155, 155 and 126 ms of CPU on its first four
 * 200-image intercepted HTTP/1.1 page loads and about 95 ms once past its
 * tenth, the same work (measured without Chrome, 6 keep-alive connections of
 * 34 requests each). External proxies (via cells) run warm all along, so a
 * Netlens cell was compared, cold, with a warm peer.
 *
 * Only the built-in test site is used: a --url target is someone else's server.
 * Every proxy here is fresh and stopped afterwards, so nothing but compiled
 * code (no connection, pool or cache) reaches a measured run. A warm-up that
 * fails or overruns its time bound is given up: the runs are measured anyway.
 */
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import type { ProxyHost, ProxyRunOptions } from './proxy-process.js';

/** Requests per proxy setting, at most: enough for V8 to optimize the per-request path (see above). */
export const WARM_UP_REQUESTS = 2000;
/** ...and at most this many loads of the page: a small page (the tests' few images) needs no long warm-up. */
const WARM_UP_PAGES = 10;
/** Tunnels per proxy setting (HTTP/1.1: requests are spread over them; HTTP/2: one session each). */
const CONNECTIONS = 12;
/** A warm-up taking longer than this is given up (a machine this slow measures noise anyway). */
const TIME_BOUND_MS = 60_000;

/** What the test site's page asks for, in the order a browser does: the page, its style sheet and scripts, its images. */
export function pagePaths(images: number): string[] {
  return ['/', '/style.css', '/app.js', '/chunked.js', ...Array.from({ length: images }, (_, i) => `/img/${i}.png`)];
}

/**
 * The request headers headless Chromium 156 sends on HTTP/1.1 for each kind of resource of the page, in its
 * order and letter case (from a lab run's proxy-side HAR): the proxy's header handling warms up on the
 * shapes the measured loads bring, not on another client's.
 */
function browserHeaders(origin: URL, path: string): Record<string, string> {
  const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36';
  const brand = '"Not:A-Brand";v="8", "Chromium";v="156"';
  const common = { Host: origin.host, Connection: 'keep-alive', Pragma: 'no-cache', 'Cache-Control': 'no-cache' };
  const tail = { 'Accept-Encoding': 'gzip, deflate, br, zstd', 'Accept-Language': 'en-US,en;q=0.9' };
  if (path === '/') {
    return {
      ...common,
      'sec-ch-ua': brand,
      'sec-ch-ua-mobile': '?0',
      'sec-ch-ua-platform': '"Linux"',
      'Upgrade-Insecure-Requests': '1',
      'User-Agent': ua,
      Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8',
      'Sec-Fetch-Site': 'none',
      'Sec-Fetch-Mode': 'navigate',
      'Sec-Fetch-User': '?1',
      'Sec-Fetch-Dest': 'document',
      ...tail,
    };
  }
  const [accept, dest] = path.endsWith('.css')
    ? ['text/css,*/*;q=0.1', 'style']
    : path.endsWith('.js')
      ? ['*/*', 'script']
      : ['image/jxl,image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8', 'image'];
  return {
    ...common,
    'sec-ch-ua-platform': '"Linux"',
    'User-Agent': ua,
    'sec-ch-ua': brand,
    'sec-ch-ua-mobile': '?0',
    Accept: accept,
    'Sec-Fetch-Site': 'same-origin',
    'Sec-Fetch-Mode': 'no-cors',
    'Sec-Fetch-Dest': dest,
    Referer: `${origin.origin}/`,
    ...tail,
  };
}

/** A TLS connection to `target` through a CONNECT tunnel of the proxy at `proxyUrl`. */
export function tunnel(proxyUrl: string, target: URL, alpn: string, ca: string[], sockets: Set<net.Socket>): Promise<tls.TLSSocket> {
  const proxy = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: target.host, agent: false });
    req.once('error', reject);
    req.once('connect', (res: http.IncomingMessage, raw: net.Socket) => {
      sockets.add(raw);
      if (res.statusCode !== 200) return reject(new Error(`CONNECT answered ${res.statusCode}`));
      const host = target.hostname.replace(/^\[|\]$/g, '');
      // `host` is the name the certificate is checked against (without it, Node checks "localhost").
      const socket = tls.connect({ socket: raw, host, ca, ALPNProtocols: [alpn], servername: net.isIP(host) ? undefined : host });
      sockets.add(socket);
      socket.once('error', reject);
      socket.once('secureConnect', () => resolve(socket));
    });
    req.end();
  });
}

/** GETs one after another on one keep-alive HTTP/1.1 connection, each taking the next path from the shared queue. */
export async function h1Requests(socket: tls.TLSSocket, target: URL, queue: string[]): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  // The tunnel is the connection: the agent keeps it alive and hands it to every request.
  agent.createConnection = () => socket;
  try {
    for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
      const path = p;
      await new Promise<void>((resolve, reject) => {
        // setHost false: Host comes first among the browser's headers, as Chromium sends it.
        const options = { agent, setHost: false, host: target.hostname, port: target.port, path, headers: browserHeaders(target, path) };
        const req = http.get(options, (res) => {
          res.resume();
          res.once('end', resolve);
          res.once('error', reject);
        });
        req.once('error', reject);
      });
    }
  } finally {
    agent.destroy();
  }
}

/** Streams a browser keeps open on an HTTP/2 connection whose server advertises no limit (Chromium's default). */
export const BROWSER_H2_STREAMS = 100;

export interface H2RequestOptions {
  /**
   * Sent as a browser sends them: one request per event-loop turn, so that each HEADERS frame leaves in its own
   * write (the proxy reads Chromium's one at a time, a TLS record each), at most BROWSER_H2_STREAMS open, the next
   * sent as one ends. Default: BROWSER_H2_STREAMS sent at once (a few writes), the next ones when all have ended.
   */
  paced?: boolean;
  /** Called with the number of streams open each time one is sent (for tests). */
  onSend?: (open: number) => void;
}

/** The GETs on one HTTP/2 session over the tunnel, taking the shared queue's paths (as a page's images go). */
export async function h2Requests(socket: tls.TLSSocket, target: URL, queue: string[], options: H2RequestOptions = {}): Promise<void> {
  const session = http2.connect(target.origin, { createConnection: () => socket });
  session.on('error', () => {});
  let open = 0;
  /** Settles when a stream closes, for a paced sender waiting for room. */
  let room: (() => void) | undefined;
  const get = (p: string) =>
    new Promise<void>((resolve, reject) => {
      const { Host: _host, Connection: _connection, ...headers } = browserHeaders(target, p);
      const stream = session.request({ ':path': p, ...headers });
      // Counted apart from the call: `onSend?.(++open)` skips its argument when there is no onSend.
      open++;
      options.onSend?.(open);
      stream.on('error', reject);
      stream.resume();
      stream.once('end', resolve);
      // 'close' comes after 'end' or an error alike: a stream that failed frees its place too.
      stream.once('close', () => {
        open--;
        room?.();
      });
    });
  try {
    if (!options.paced) {
      while (queue.length) await Promise.all(queue.splice(0, BROWSER_H2_STREAMS).map(get));
      return;
    }
    const sent: Promise<void>[] = [];
    for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
      while (open >= BROWSER_H2_STREAMS) await new Promise<void>((resolve) => (room = resolve));
      const done = get(p);
      // Settled by Promise.all below; a rejection seen meanwhile is not an unhandled one.
      done.catch(() => {});
      sent.push(done);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(sent);
  } finally {
    session.destroy();
  }
}

export interface WarmUpOptions {
  /** The test site's URL and the number of images its page has. */
  siteUrl: string;
  images: number;
  /** CA certificates the client trusts (the Netlens CA: the test site's and the intercepting proxy's leaves). */
  ca: string[];
  /** The proxy settings to warm, each as the lab's runs start it (without a journal). */
  settings: Array<ProxyRunOptions['proxy']>;
  /** Requests per setting (default WARM_UP_REQUESTS, and never more than WARM_UP_PAGES loads of the page). */
  requests?: number;
  signal?: AbortSignal;
}

/** Warms `host` with every setting in turn; resolves when done or given up (never rejects). */
export async function warmUpProxy(host: ProxyHost, options: WarmUpOptions): Promise<void> {
  const target = new URL(options.siteUrl);
  const requests = options.requests ?? WARM_UP_REQUESTS;
  const page = pagePaths(options.images);
  const pages = Math.min(WARM_UP_PAGES, Math.ceil(requests / page.length));
  const paths = Array.from({ length: pages }, () => page)
    .flat()
    .slice(0, requests);
  const deadline = performance.now() + TIME_BOUND_MS;
  for (const proxy of options.settings) {
    if (options.signal?.aborted || performance.now() > deadline) return;
    const run = await host.startRun({ proxy }).catch(() => undefined);
    if (!run) return;
    const sockets = new Set<net.Socket>();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - performance.now()))));
    const work = (async () => {
      const alpn = proxy.http2 ? 'h2' : 'http/1.1';
      // One tunnel first (a browser opens one for the page before the others); then all take the next path from one queue.
      const queue = [...paths];
      const first = await tunnel(run.url, target, alpn, options.ca, sockets);
      const connections = [
        first,
        ...(await Promise.all(Array.from({ length: CONNECTIONS - 1 }, () => tunnel(run.url, target, alpn, options.ca, sockets)))),
      ];
      await Promise.all(
        connections.map((socket) => (socket.alpnProtocol === 'h2' ? h2Requests(socket, target, queue) : h1Requests(socket, target, queue))),
      );
    })().catch(() => undefined);
    // A cancelled lab does not wait for the warm-up: its tunnels are closed and its proxy stopped at once.
    const cancelled = new Promise<void>((resolve) => options.signal?.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([work, bound, cancelled]);
    clearTimeout(timer);
    for (const s of sockets) s.destroy();
    await run.stop().catch(() => undefined);
  }
}
