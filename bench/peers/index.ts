/**
 * The proxies the benchmark compares, and how to start each one in its own
 * process. `kind` says what a peer can do: forward plain HTTP, intercept
 * HTTPS (terminate TLS and see every request), or tunnel CONNECT blindly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleBenchEntry, bundleNetlensPeer } from '../lib/bundle.js';
import { freePort, startChild, tsArgs, type Child } from '../lib/child.js';
import type { BenchEnv, Peer, PeerInfo } from '../lib/peer-types.js';

export type { BenchEnv, Peer, PeerInfo } from '../lib/peer-types.js';

const nodePeer = (name: string, file: string, opts: Partial<Peer> = {}, extraArgs: (env: BenchEnv) => string[] = () => []): Peer => ({
  name,
  forwards: true,
  ...opts,
  start: (env) => {
    const [cmd, args] = tsArgs(file, [env.dataDir, ...extraArgs(env)]);
    // Intercepting Node peers verify upstream certificates against the bench CA.
    return startChild<PeerInfo>(name, cmd, args, { env: { NODE_EXTRA_CA_CERTS: env.caPath } });
  },
});

/** Starts the Netlens peer, bundled and run by plain node as the desktop app ships it (no tsx loader thread or helpers). */
async function startNetlens(env: BenchEnv, intercept: boolean, record: '0' | '1' | 'toggle', timeline: boolean): Promise<Child<PeerInfo>> {
  const bundle = await bundleNetlensPeer();
  const child = await startChild<PeerInfo>('netlens', process.execPath, [
    bundle,
    env.dataDir,
    intercept ? '1' : '0',
    record,
    timeline ? '1' : '0',
  ]);
  child.info.caPath = env.caPath;
  return child;
}

export const netlens = (record: boolean, intercept = true, timeline = true): Peer => ({
  name: intercept ? `netlens${record ? '' : ' (recording off)'}${timeline ? '' : ' (timeline off)'}` : 'netlens blind tunnel',
  forwards: true,
  connect: intercept ? 'intercept' : 'tunnel',
  start: (env) => startNetlens(env, intercept, record ? '1' : '0', timeline),
});

/** Recording Netlens whose recorder the bench starts and stops between windows (paired-cost.ts pairedToggle). */
export const netlensRecorderToggle: Peer = {
  name: 'netlens (recorder toggled)',
  forwards: true,
  connect: 'intercept',
  start: (env) => startNetlens(env, true, 'toggle', true),
};

export const nodeMinimal = nodePeer('node:http minimal', 'peers/node-minimal.ts');
export const httpxy = nodePeer('httpxy', 'peers/httpxy.ts');
export const httpProxy3 = nodePeer('http-proxy-3', 'peers/http-proxy-3.ts');
export const fastProxy = nodePeer('fast-proxy', 'peers/fast-proxy.ts', {}, (env) => [env.originHttp]);
export const mockttp: Peer = {
  ...nodePeer('mockttp', 'peers/mockttp.ts', { connect: 'intercept' }),
  start: async (env) => {
    const [cmd, args] = tsArgs('peers/mockttp.ts', [env.dataDir]);
    const child = await startChild<PeerInfo>('mockttp', cmd, args, { env: { NODE_EXTRA_CA_CERTS: env.caPath } });
    child.info.caPath = env.caPath;
    return child;
  },
};
/** mockttp offering HTTP/2 to clients (`http2: true`), for the page load: its default gives Chrome HTTP/1.1 only. */
export const mockttpH2: Peer = {
  ...mockttp,
  name: 'mockttp (http2: true)',
  start: async (env) => {
    const [cmd, args] = tsArgs('peers/mockttp.ts', [env.dataDir, 'h2']);
    const child = await startChild<PeerInfo>('mockttp', cmd, args, { env: { NODE_EXTRA_CA_CERTS: env.caPath } });
    child.info.caPath = env.caPath;
    return child;
  },
};
export const nodeMinimalMitm = nodePeer('node:https minimal MITM', 'peers/node-minimal-mitm.ts', { forwards: false, connect: 'intercept' });
/**
 * The HTTP/2 floor (node:http2 on both legs, nothing else; HTTP/1.1 clients get the node:https floor's path), as a lab
 * external proxy in the page load. Bundled and run by plain node as Netlens is, so tsx's loader and helpers are not
 * counted below our code. Its HTTP/2 leg forwards over HTTP/2 only, and the bench origin speaks HTTP/1.1, so the start
 * check goes over HTTP/1.1; the lab's test site speaks both.
 */
export const nodeMinimalH2Mitm: Peer = {
  name: 'node:http2 minimal MITM',
  forwards: false,
  connect: 'intercept',
  connectCheckArgs: ['--http1.1'],
  start: async (env) => {
    const bundle = await bundleBenchEntry('peers/node-minimal-h2-mitm.ts', 'node-h2-floor');
    return startChild<PeerInfo>('node:http2 minimal MITM', process.execPath, [bundle, env.dataDir]);
  },
};
/**
 * The same floor forwarding its HTTP/2 streams over https.request (HTTP/1.1 upstream): in the large-body phase, the
 * floor for curl's default HTTP/2 client leg to the bench origin, which speaks HTTP/1.1 only. Checked over HTTP/2.
 */
export const nodeMinimalH2MitmH1Upstream: Peer = {
  name: 'node:http2 minimal MITM (HTTP/1.1 upstream)',
  forwards: false,
  connect: 'intercept',
  start: async (env) => {
    const bundle = await bundleBenchEntry('peers/node-minimal-h2-mitm.ts', 'node-h2-floor');
    return startChild<PeerInfo>('node:http2 minimal MITM', process.execPath, [bundle, env.dataDir, 'h1-upstream']);
  },
};
export const httpMitmProxy = nodePeer('http-mitm-proxy', 'peers/http-mitm-proxy.ts', { connect: 'intercept' });

/**
 * mitmproxy (Python) via mitmdump -q: its confdir gets the bench CA as
 * mitmproxy-ca.pem (key + certificate) so clients trust it like the others,
 * and upstream certificates are verified against the same CA.
 */
export const mitmproxy: Peer = {
  name: 'mitmproxy',
  forwards: true,
  connect: 'intercept',
  start: async (env) => {
    if (!env.mitmdump) throw new Error('mitmdump not installed (python3 -m venv + pip install mitmproxy)');
    const confdir = path.join(env.dataDir, 'mitmproxy');
    fs.mkdirSync(confdir, { recursive: true });
    const caDir = path.join(env.dataDir, 'ca');
    fs.writeFileSync(
      path.join(confdir, 'mitmproxy-ca.pem'),
      fs.readFileSync(path.join(caDir, 'netlens-ca.key'), 'utf8') + fs.readFileSync(path.join(caDir, 'netlens-ca.pem'), 'utf8'),
    );
    const port = await freePort();
    const args = [
      '-q',
      '--listen-host',
      '127.0.0.1',
      '--listen-port',
      String(port),
      '--set',
      `confdir=${confdir}`,
      '--set',
      `ssl_verify_upstream_trusted_ca=${env.caPath}`,
    ];
    const child = await startChild<PeerInfo>('mitmproxy', env.mitmdump, args, { readyPort: port, readyTimeoutMs: 30_000 });
    child.info.caPath = env.caPath;
    return child;
  },
};

/** nginx (one worker) as a non-Node ceiling for plain forwarding; skipped when no nginx binary is found. */
export { nginx } from './nginx.js';
