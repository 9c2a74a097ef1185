/**
 * The lab commands. Bookkeeping, history and the checks of a run's settings
 * (against LAB_LIMITS, the same the CLI and the runner use) live in lab-service.ts;
 * an https URL target is trusted as the capture proxy trusts upstreams.
 * Commands: getLabOptions, startLab, cancelLab, getLabRun, getLabHar,
 * listLabRuns, deleteLabRun, compareLabRuns, exportLabReport.
 */
import type { CommandArgs, NetlensApi, NetlensEvent } from '../contract.js';
import type { LabBackend } from '../backends.js';
import { LabService } from '../lab-service.js';
import type { RulesFile } from '../../rules/types.js';
import type { ProxyController } from './proxy.js';

export type LabCommands = Pick<
  NetlensApi,
  | 'getLabOptions'
  | 'startLab'
  | 'cancelLab'
  | 'getLabRun'
  | 'getLabHar'
  | 'listLabRuns'
  | 'deleteLabRun'
  | 'compareLabRuns'
  | 'exportLabReport'
>;

/** `currentRules`: the app's rules now (getRules), which a variant of source "current" runs with. */
export function createLab(
  lab: LabBackend,
  dataDir: string,
  proxy: ProxyController,
  emit: (e: NetlensEvent) => void,
  currentRules: () => RulesFile | undefined = () => undefined,
) {
  const trust = () => ({ upstreamCA: proxy.upstreamCA(), insecure: proxy.config.insecureUpstream });
  const labs = new LabService(lab, dataDir, emit, trust, currentRules);
  const commands: LabCommands = {
    getLabOptions: async () => labs.options(),
    startLab: (args: CommandArgs<'startLab'>) => labs.start(args),
    cancelLab: (args: CommandArgs<'cancelLab'>) => labs.cancel(args),
    getLabRun: (args: CommandArgs<'getLabRun'>) => labs.get(args),
    getLabHar: (args: CommandArgs<'getLabHar'>) => labs.har(args),
    listLabRuns: () => labs.list(),
    deleteLabRun: (args: CommandArgs<'deleteLabRun'>) => labs.remove(args),
    compareLabRuns: (args: CommandArgs<'compareLabRuns'>) => labs.compare(args),
    exportLabReport: (args: CommandArgs<'exportLabReport'>) => labs.report(args),
  };
  return { service: labs, commands };
}
