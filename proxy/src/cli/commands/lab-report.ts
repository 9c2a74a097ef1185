/** `netlens lab report DIR [--html FILE]`: a stored lab run as a table, and as one self-contained HTML file. */
import fs from 'node:fs';
import path from 'node:path';
import { buildHtmlReport } from '../../lab/html-report.js';
import { formatTable } from '../../lab/report.js';
import { EXIT_OK, UsageError, type CommandContext } from '../command.js';

export const LAB_REPORT_HELP = `Report of a stored run:
  netlens lab report DIR [--html FILE]
                         DIR holds results.json (and har/) from "lab --out DIR" or the app's
                         <data dir>/lab/<run id>; prints the table, and with --html writes one
                         self-contained HTML file (tables, charts, the median run's waterfall per
                         cell, machine and versions) that opens offline, to attach to a ticket.`;

export async function labReport(ctx: Pick<CommandContext, 'values' | 'positionals' | 'stdout' | 'stderr'>): Promise<number> {
  const { values, positionals, stdout, stderr } = ctx;
  const others = Object.keys(values).filter((k) => k !== 'html' && values[k] !== undefined);
  if (others.length) throw new UsageError(`lab report takes only --html FILE (got --${others[0]})`);
  if (positionals.length !== 1) throw new UsageError('usage: netlens lab report DIR [--html FILE]');
  const dir = path.resolve(positionals[0]);
  const html = values.html;
  if (html !== undefined && (typeof html !== 'string' || html === '')) throw new UsageError('--html needs a file name');
  const { result, html: text } = await buildHtmlReport(dir);
  stdout.write(formatTable(result) + '\n');
  if (typeof html === 'string') {
    const file = path.resolve(html);
    try {
      await fs.promises.writeFile(file, text);
    } catch (err) {
      throw new Error(`cannot write the report to ${file}: ${(err as Error).message}`, { cause: err });
    }
    stderr.write(`Report: ${file} (${Math.round(text.length / 1024)} KiB, opens offline)\n`);
  }
  return EXIT_OK;
}
