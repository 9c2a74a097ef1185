/**
 * The breakpoint queue: exchanges the proxy's `breakpoint` rules paused (rules/breakpoints.ts),
 * listed, continued with edits or aborted by the UI, and pushed as `breakpoints` events when
 * one pauses or resumes. The registry outlives proxy restarts (the core hands the same one
 * to each proxy it starts). Commands: listBreakpoints, continueBreakpoint, abortBreakpoint.
 */
import { Breakpoints, type BreakpointEdits } from '../../rules/breakpoints.js';
import type { CommandArgs, NetlensApi, NetlensEvent, PausedBreakpoint } from '../contract.js';
import { bad, obj, str, type Args } from './args.js';

export type BreakpointCommands = Pick<NetlensApi, 'listBreakpoints' | 'continueBreakpoint' | 'abortBreakpoint'>;

const MAX_HEADERS = 1000;
const MAX_BODY_CHARS = 16 * 1024 * 1024;

/** continueBreakpoint's `edits`: each field checked for shape here, for meaning by the registry. */
export function editsArg(a: Args, command: string): BreakpointEdits | undefined {
  const e = a.edits;
  if (e === undefined || e === null) return undefined;
  if (typeof e !== 'object' || Array.isArray(e)) throw bad(`${command}: "edits" must be an object`);
  const edits = e as Args;
  const out: BreakpointEdits = {};
  if (edits.headers !== undefined) {
    const h = edits.headers;
    if (!Array.isArray(h) || h.length > MAX_HEADERS)
      throw bad(`${command}: "edits.headers" must be a list of at most ${MAX_HEADERS} [name, value] pairs`);
    out.headers = h.map((pair, i) => {
      if (!Array.isArray(pair) || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
        throw bad(`${command}: "edits.headers[${i}]" must be a [name, value] pair of strings`);
      }
      return [pair[0], pair[1]] as [string, string];
    });
  }
  if (edits.body !== undefined) {
    if (typeof edits.body !== 'string' || edits.body.length > MAX_BODY_CHARS)
      throw bad(`${command}: "edits.body" must be a string of at most 16 Mi characters`);
    out.body = edits.body;
  }
  if (edits.url !== undefined) out.url = str(edits, 'url', `${command} edits`, 65_536);
  if (edits.status !== undefined) {
    if (typeof edits.status !== 'number') throw bad(`${command}: "edits.status" must be a number`);
    out.status = edits.status;
  }
  return out;
}

export class BreakpointQueue {
  readonly registry = new Breakpoints();

  constructor(emit: (event: NetlensEvent) => void) {
    this.registry.onChange = () => emit({ type: 'breakpoints', items: this.list() });
  }

  private list(): PausedBreakpoint[] {
    return this.registry.list().map((p) => ({ ...p, headers: p.headers.map(([k, v]) => [k, v] as [string, string]) }));
  }

  /** A UI subscribed; call the result when it leaves (the last one leaving continues every pause). */
  watch(): () => void {
    return this.registry.watch();
  }

  readonly commands: BreakpointCommands = {
    listBreakpoints: async () => this.list(),
    continueBreakpoint: async (args: CommandArgs<'continueBreakpoint'>) => {
      const a = obj(args, 'continueBreakpoint');
      const id = str(a, 'id', 'continueBreakpoint', 200);
      this.registry.continue(id, editsArg(a, 'continueBreakpoint'));
      return { continued: true };
    },
    abortBreakpoint: async (args: CommandArgs<'abortBreakpoint'>) => {
      const id = str(obj(args, 'abortBreakpoint'), 'id', 'abortBreakpoint', 200);
      this.registry.abort(id);
      return { aborted: true };
    },
  };

  /** Continues every pause unchanged, e.g. when the app's window closes while subscribers remain; returns how many. */
  releaseAll(): number {
    return this.registry.releaseAll();
  }

  close(): void {
    this.registry.releaseAll();
  }
}
