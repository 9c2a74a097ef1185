/**
 * Netlens with the socket timeline on or off, in its own process, for
 * bench/timeline-cost.ts. argv: <dataDir> <timeline 0|1>. Prints READY {port}.
 */
import { startProxy } from '../proxy/src/server/proxy-server.js';
import { ready } from './lib/child.js';

const [dataDir, timeline] = process.argv.slice(2);
const proxy = await startProxy({ port: 0, host: '127.0.0.1', dataDir, intercept: false, bodyCaptureLimit: 0, timeline: timeline === '1' });
process.on('SIGTERM', () => void proxy.stop().then(() => process.exit(0)));
ready({ port: proxy.address.port });
