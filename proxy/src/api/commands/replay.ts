/**
 * Sessions → Serve (a replay proxy of its own) and Resend. The orchestration,
 * with each command's argument checks, lives in replay-service.ts; here it is
 * wired to the capture proxy, whose trust and capture settings the replay proxy shares.
 * Commands: startReplayServer, replayServerStatus, stopReplayServer, resendSession.
 */
import type { ProxyOptions } from '../../options.js';
import type { ProxyHandle } from '../../server/proxy-server.js';
import type { CommandArgs, NetlensApi, NetlensEvent } from '../contract.js';
import type { SessionBackend } from '../backends.js';
import { ReplayService } from '../replay-service.js';
import type { ProxyController, ProxyExtras } from './proxy.js';

export type ReplayCommands = Pick<NetlensApi, 'startReplayServer' | 'replayServerStatus' | 'stopReplayServer' | 'resendSession'>;

export interface ReplayDeps {
  dataDir: string;
  sessions: SessionBackend;
  startProxy: (options: ProxyOptions) => Promise<ProxyHandle>;
  extras?: ProxyExtras;
  proxy: ProxyController;
  emit: (event: NetlensEvent) => void;
}

export function createReplay(deps: ReplayDeps): { service: ReplayService; commands: ReplayCommands } {
  const { proxy } = deps;
  const service = new ReplayService({
    dataDir: deps.dataDir,
    sessions: deps.sessions,
    startProxy: deps.startProxy,
    // The replay proxy trusts and captures what the capture proxy does (Settings included).
    proxyExtras: () => ({
      ...deps.extras,
      upstreamCA: proxy.upstreamCA(),
      insecureUpstream: proxy.config.insecureUpstream,
      bodyCaptureLimit: proxy.config.bodyCaptureLimit,
      intercept: proxy.config.intercept,
      http2: proxy.config.http2,
      nagle: proxy.config.nagle,
    }),
    captureProxy: () => {
      const p = proxy.running;
      return p ? { url: p.address.url, caPem: p.ca.certPem } : undefined;
    },
    emit: deps.emit,
  });
  const commands: ReplayCommands = {
    startReplayServer: (args: CommandArgs<'startReplayServer'>) => service.start(args),
    replayServerStatus: async () => service.status(),
    stopReplayServer: () => service.stop(),
    resendSession: (args: CommandArgs<'resendSession'>) => service.resend(args),
  };
  return { service, commands };
}
