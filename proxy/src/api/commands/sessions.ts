/**
 * The session commands: the saved list, saving the live capture, HAR import and
 * export, delete, and (through session-commands.ts, with its bounded caches)
 * what the UI shows of an opened session.
 * Commands: listSessions, openSession, getSessionEntry, getSessionBody,
 * getSessionField, saveSession, importHar, exportHar, deleteSession, openLabSession.
 */
import path from 'node:path';
import type { Exchange } from '../../model.js';
import type { TimelineLog } from '../../timeline/types.js';
import type { CommandArgs, NetlensApi, NetlensEvent } from '../contract.js';
import type { SessionBackend } from '../backends.js';
import { SessionCommands } from '../session-commands.js';
import { bad, obj, str } from './args.js';

export type SessionsCommands = Pick<
  NetlensApi,
  | 'listSessions'
  | 'openSession'
  | 'getSessionEntry'
  | 'getSessionBody'
  | 'getSessionField'
  | 'saveSession'
  | 'importHar'
  | 'exportHar'
  | 'deleteSession'
  | 'openLabSession'
>;

/** saveSession: `{ name, id? }`; without `id` the live capture is saved under `name`, with it that session is renamed. */
export function saveSessionArgs(args: unknown): { name: string; id?: string } {
  const a = obj(args, 'saveSession');
  const name = str(a, 'name', 'saveSession', 200).trim();
  if (!name) throw bad('saveSession: "name" must not be blank');
  return a.id === undefined ? { name } : { name, id: str(a, 'id', 'saveSession', 500) };
}

/** importHar: `{ fileName, text }`. */
export function importHarArgs(args: unknown): { fileName: string; text: string } {
  const a = obj(args, 'importHar');
  return { fileName: str(a, 'fileName', 'importHar', 500), text: str(a, 'text', 'importHar') };
}

/** exportHar / deleteSession: `{ id }` (exportHar without it exports the live capture). */
export function sessionIdArg(args: unknown, command: 'exportHar' | 'deleteSession', optional: boolean): string | undefined {
  const a = obj(args, command);
  return optional && a.id === undefined ? undefined : str(a, 'id', command, 500);
}

export interface SessionsDeps {
  sessions: SessionBackend;
  /** The live capture's finished exchanges (saveSession, exportHar without an id). */
  captured: () => Exchange[];
  /** The live capture's socket timeline (saved with it as `log._connections`), when the proxy records one. */
  timeline: () => TimelineLog | undefined;
  emit: (event: NetlensEvent) => void;
  /** openLabSession: the lab run's HAR file named by `{ runId, file }`, checked to be inside the run's directory. */
  labHarFile: (args: unknown) => Promise<{ runId: string; file: string }>;
}

/** "lab <run> · 0004 proxy+h2+intercept (proxy side)" from a lab HAR's file name (`0004-proxy+h2+intercept.proxy.har`). */
export function labSessionName(runId: string, file: string): string {
  const m = /^(\d+)-(.+?)\.(proxy|browser)\.har$/.exec(path.basename(file));
  return m ? `lab ${runId} · ${m[1]} ${m[2]} (${m[3]} side)` : `lab ${runId} · ${path.basename(file).replace(/\.har$/i, '')}`;
}

export class Sessions {
  /** openSession and what the UI asks of an opened session (bounded caches of its own). */
  private readonly view: SessionCommands;

  constructor(private readonly deps: SessionsDeps) {
    this.view = new SessionCommands(deps.sessions);
  }

  readonly commands: SessionsCommands = {
    listSessions: async () => this.deps.sessions.list(),
    /** Rows only, like the live capture: details, bodies and whole values come one entry at a time. */
    openSession: (args: CommandArgs<'openSession'>) => this.view.open(args),
    getSessionEntry: (args: CommandArgs<'getSessionEntry'>) => this.view.detail(args),
    getSessionBody: (args: CommandArgs<'getSessionBody'>) => this.view.body(args),
    getSessionField: (args: CommandArgs<'getSessionField'>) => this.view.field(args),

    saveSession: async (args: CommandArgs<'saveSession'>) => {
      const { name, id } = saveSessionArgs(args);
      const { sessions } = this.deps;
      const info =
        id === undefined ? await sessions.saveCapture(name, this.deps.captured(), this.deps.timeline()) : await sessions.rename(id, name);
      this.deps.emit({ type: 'sessions-changed' });
      return info;
    },

    importHar: async (args: CommandArgs<'importHar'>) => {
      const { fileName, text } = importHarArgs(args);
      const info = await this.deps.sessions.importHar(fileName, text);
      this.deps.emit({ type: 'sessions-changed' });
      return info;
    },

    exportHar: async (args: CommandArgs<'exportHar'>) => {
      const id = sessionIdArg(args, 'exportHar', true);
      if (id !== undefined) return this.deps.sessions.exportHar(id);
      return this.deps.sessions.exportCapture(this.deps.captured(), this.deps.timeline());
    },

    openLabSession: async (args: CommandArgs<'openLabSession'>) => {
      const { runId, file } = await this.deps.labHarFile(args);
      const before = (await this.deps.sessions.list()).length;
      const info = await this.deps.sessions.importLabHar(file, labSessionName(runId, file));
      if ((await this.deps.sessions.list()).length !== before) this.deps.emit({ type: 'sessions-changed' });
      return info;
    },

    deleteSession: async (args: CommandArgs<'deleteSession'>) => {
      const id = sessionIdArg(args, 'deleteSession', false)!;
      const deleted = await this.deps.sessions.delete(id);
      this.view.forget(id);
      this.deps.emit({ type: 'sessions-changed' });
      return { deleted };
    },
  };

  close(): void {
    this.view.close();
  }
}
