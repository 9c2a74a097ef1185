/**
 * Netlens core: the public surface of the proxy library.
 * Plain Node; nothing here knows about Electron or React.
 */
export { startProxy } from './server/proxy-server.js';
export type { ProxyHandle } from './server/proxy-server.js';
export type { ProxyOptions } from './options.js';
export { defaultDataDir, resolveOptions } from './options.js';
export { EventStream } from './events.js';
export type { ProxyEventListener } from './events.js';
export { NetlensError, ErrorCodes } from './errors.js';
export { loadOrCreateCA } from './tls/ca.js';
export type { CertificateAuthority } from './tls/ca.js';
export * from './model.js';
