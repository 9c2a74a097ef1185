import type { CliCommand } from '../command.js';
import { proxyCommand } from './proxy.js';
import { caCommand } from './ca.js';
import { serveCommand } from './serve.js';
import { harCommand } from './har.js';
import { sessionsCommand } from './sessions.js';
import { recordCommand } from './record.js';
import { siteCommand } from './site.js';
import { labCommand } from './lab.js';
import { replayCommand } from './replay.js';

/** Every `netlens` command, in the order `--help` lists them. Add new commands here. */
export const commands: CliCommand[] = [
  proxyCommand,
  caCommand,
  serveCommand,
  harCommand,
  sessionsCommand,
  recordCommand,
  siteCommand,
  labCommand,
  replayCommand,
];
