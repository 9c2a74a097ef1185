import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startProxy, type ProxyHandle } from '../../server/proxy-server.js';
import { rulesFlag, rulesHelp } from '../rules-flag.js';
import { HarRecorder } from '../../har/recorder.js';
import { exportJournal } from '../../har/journal.js';
import { writeHar, NETLENS_CREATOR } from '../../har/writer.js';
import { loadReplayHar } from '../../replay/load.js';
import { startReplayServer, UNMATCHED_POLICIES, type UnmatchedPolicy } from '../../replay/server-replay.js';
import { resend } from '../../replay/client-replay.js';
import { formatResendReport, formatResendRow, formatServeReport, summarizeResend } from '../../replay/report.js';
import { formatExchangeLine } from '../format.js';
import { trustInstructions } from '../../tls/trust.js';
import { EXIT_FAILED, EXIT_OK, intFlag, UsageError, type CliCommand, type CommandContext } from '../command.js';
import { dataDirFlag, insecureFlag, upstreamCAFlag } from '../flags.js';
import { plural } from '../format.js';

const list = (v: unknown): string[] =>
  ((v as string[] | undefined) ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);

export const replayCommand: CliCommand = {
  name: 'replay',
  summary: 'serve a recorded HAR as the network (--serve) or send its requests again and compare (--resend)',
  help: `Usage: netlens replay FILE.har --serve [flags]
       netlens replay FILE.har --resend [flags]

--serve: a proxy (same CA and flags as "netlens proxy") that answers requests
from the recording: matched by method, scheme, host, port, path, query (any
order) and body. Identical requests get the recorded responses in order, then
the last one again. Ctrl-C stops it and prints the replay report.

--resend: sends the recorded requests again (through a proxy of its own, so they
are recorded again, or --direct) and prints, per request, status, size and time
before → after, marking what changed. Exit code 1 when any request changed or failed.

Serve flags:
  --port N              port to listen on (default 8080; 0 = any free port)
  --extra POLICY        unmatched requests: forward (default), 404, or kill
  --ignore-param NAME   query parameter left out of matching; repeatable or comma-separated
  --match-header NAME   header whose value must match too ("*" = all but volatile ones); repeatable
  --ignore-header NAME  header never matched on (with --match-header "*"); repeatable
  --no-body-match       do not compare request bodies
  --no-reuse            once all recordings of a request are used, treat repeats as unmatched
  --keep-dates          serve Date/Expires/Last-Modified as recorded (default: refreshed)
  --pacing              replay the recorded wait and receive times
  --no-http2            HTTP/1.1 only on the client leg
  --data-dir DIR        data directory holding the CA (default as "netlens proxy")
  --quiet               no line per exchange
  --upstream-ca FILE    also trust this CA (PEM) for forwarded requests; repeatable
  --insecure            do not verify upstream certificates of forwarded requests (testing only)
${rulesHelp(24)}
                        (rules apply to what the recording lacks: the requests --extra forward sends on)

Resend flags:
  --concurrency N       requests in flight at once (default 1: sequential)
  --out NEW.har         write the new exchanges as a HAR
  --direct              do not go through a Netlens proxy (the HAR then has client-side timings only)
  --only I,J,…          resend only these entry indexes (0-based, as in log.entries)
  --upstream-ca FILE    also trust this CA (PEM) for origin TLS; repeatable
  --insecure            do not verify origin certificates (testing only)
  --timeout-ms MS       per-request timeout (default 30000)

Examples:
  netlens replay page.har --serve --port 8080 --extra 404
  netlens replay page.har --resend --concurrency 4 --out again.har
`,
  options: {
    serve: { type: 'boolean' },
    resend: { type: 'boolean' },
    port: { type: 'string' },
    extra: { type: 'string' },
    'ignore-param': { type: 'string', multiple: true },
    'match-header': { type: 'string', multiple: true },
    'ignore-header': { type: 'string', multiple: true },
    'no-body-match': { type: 'boolean' },
    'no-reuse': { type: 'boolean' },
    'keep-dates': { type: 'boolean' },
    pacing: { type: 'boolean' },
    'no-http2': { type: 'boolean' },
    'data-dir': { type: 'string' },
    quiet: { type: 'boolean' },
    concurrency: { type: 'string' },
    out: { type: 'string' },
    direct: { type: 'boolean' },
    only: { type: 'string' },
    'upstream-ca': { type: 'string', multiple: true },
    insecure: { type: 'boolean' },
    'timeout-ms': { type: 'string' },
    rules: { type: 'string' },
  },
  maxPositionals: 1,
  async run(ctx) {
    const { values, positionals } = ctx;
    const file = positionals[0];
    if (!file) throw new UsageError('give the HAR file to replay, e.g. "netlens replay page.har --serve"');
    if (Boolean(values.serve) === Boolean(values.resend))
      throw new UsageError('choose one of --serve (answer from the recording) or --resend (send again and compare)');
    const extra = (values.extra as string | undefined) ?? 'forward';
    if (!UNMATCHED_POLICIES.includes(extra as UnmatchedPolicy))
      throw new UsageError(`--extra must be forward, 404 or kill (got "${extra}")`);
    const dataDir = dataDirFlag(values, ctx.env);
    insecureFlag(values, ctx.stderr); // the warning; serve and resend read values.insecure
    const loaded = await loadReplayHar(path.resolve(file));
    for (const w of loaded.warnings.slice(0, 5)) ctx.stderr.write(`netlens: ${w}\n`);
    return values.serve ? serve(ctx, loaded.entries, extra as UnmatchedPolicy, dataDir) : resendCommand(ctx, loaded.entries, dataDir);
  },
};

async function serve(
  ctx: CommandContext,
  entries: Awaited<ReturnType<typeof loadReplayHar>>['entries'],
  extra: UnmatchedPolicy,
  dataDir: string,
): Promise<number> {
  const { values, stdout, stderr } = ctx;
  const rules = rulesFlag(values, stderr);
  const { proxy, replay } = await startReplayServer(
    entries,
    {
      extra,
      ignoreQueryParams: list(values['ignore-param']),
      matchHeaders: list(values['match-header']),
      ignoreHeaders: list(values['ignore-header']),
      matchBody: !values['no-body-match'],
      reuseLast: !values['no-reuse'],
      refreshDates: !values['keep-dates'],
      pacing: Boolean(values.pacing),
    },
    {
      port: intFlag(values, 'port', 8080, 0, 65535),
      http2: !values['no-http2'],
      dataDir,
      upstreamCA: upstreamCAFlag(values),
      insecureUpstream: Boolean(values.insecure),
      rules: rules?.holder,
    },
  );
  stdout.write(`Netlens replay proxy listening on ${proxy.address.url}\n`);
  stdout.write(`  serving ${entries.length} recorded responses · unmatched requests: ${extra} · CA ${proxy.ca.certPath}\n`);
  stdout.write(trustInstructions(proxy.ca.certPath, proxy.ca.leafSpkiHash, proxy.address) + '\n\n');
  if (!values.quiet) {
    proxy.events.subscribe((e) => {
      if (e.type === 'complete' || e.type === 'error')
        stdout.write(`${e.exchange.replayed ? 'replay ' : 'extra  '}${formatExchangeLine(e.exchange)}\n`);
    });
  }
  const sig = await ctx.stopSignal;
  stderr.write(`\n${sig}: stopping replay…\n`);
  await proxy.stop();
  rules?.close();
  stdout.write(formatServeReport(replay.report()) + '\n');
  return EXIT_OK;
}

function onlyIndexes(raw: unknown, max: number): Set<number> | undefined {
  if (raw === undefined) return undefined;
  const out = new Set<number>();
  for (const part of String(raw).split(',')) {
    const n = Number(part.trim());
    if (!/^\d+$/.test(part.trim()) || n >= max)
      throw new UsageError(`--only takes entry indexes 0–${max - 1} separated by commas (got "${part}")`);
    out.add(n);
  }
  return out;
}

async function resendCommand(
  ctx: CommandContext,
  all: Awaited<ReturnType<typeof loadReplayHar>>['entries'],
  dataDir: string,
): Promise<number> {
  const { values, stdout, stderr } = ctx;
  const only = onlyIndexes(values.only, Math.max(...all.map((e) => e.index)) + 1);
  const entries = only ? all.filter((e) => only.has(e.index)) : all;
  if (entries.length === 0) throw new UsageError('--only selects no replayable entry (entries without a response are never resent)');
  const concurrency = intFlag(values, 'concurrency', 1, 1, 256);
  const timeoutMs = intFlag(values, 'timeout-ms', 30_000, 100, 3_600_000);
  const upstreamCA = upstreamCAFlag(values);
  const out = values.out ? path.resolve(String(values.out)) : undefined;
  const abort = new AbortController();
  void ctx.stopSignal.then(() => abort.abort());

  let proxy: ProxyHandle | undefined;
  let recorder: HarRecorder | undefined;
  let journal: string | undefined;
  try {
    if (!values.direct) {
      // Our own proxy: the resent requests are recorded with full proxy timings, as any session.
      proxy = await startProxy({ port: 0, dataDir, upstreamCA, insecureUpstream: Boolean(values.insecure) });
      if (out) {
        journal = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-resend-')), 'resend.journal');
        recorder = new HarRecorder(proxy.events, { journalFile: journal, name: `resend ${path.basename(ctx.positionals[0])}` });
      }
      stderr.write(`Resending ${plural(entries.length, 'request')} through ${proxy.address.url} (concurrency ${concurrency})…\n`);
    } else stderr.write(`Resending ${plural(entries.length, 'request')} directly (concurrency ${concurrency})…\n`);
    const result = await resend(entries, {
      proxyUrl: proxy?.address.url,
      concurrency,
      timeoutMs,
      ca: proxy ? [proxy.ca.certPem, ...upstreamCA] : upstreamCA,
      insecure: Boolean(values.insecure),
      signal: abort.signal,
      onResult: (r) => stderr.write(`${formatResendRow(r)}\n`),
    });
    // The proxy finishes an exchange just after the client has the last byte: let the recorder catch up (bounded).
    const until = Date.now() + 5000;
    while (recorder && recorder.stats.entries + recorder.stats.failed < result.rows.length && Date.now() < until)
      await new Promise((r) => setTimeout(r, 10));
    recorder?.stop();
    await proxy?.stop();
    proxy = undefined;
    stdout.write(formatResendReport(result) + '\n');
    if (out) {
      if (journal) {
        const written = await exportJournal(journal, out);
        stdout.write(`New HAR: ${out} (${plural(written.entries, 'entry', 'entries')}, recorded by the proxy)\n`);
      } else {
        const written = await writeHar(
          out,
          { creator: NETLENS_CREATOR, pages: [], comment: 'netlens replay --resend --direct (client-side timings)' },
          result.entries,
        );
        stdout.write(`New HAR: ${out} (${plural(written.entries, 'entry', 'entries')}, client-side timings)\n`);
      }
    }
    const s = summarizeResend(result);
    return s.changed + s.failed > 0 ? EXIT_FAILED : EXIT_OK;
  } finally {
    recorder?.stop();
    await proxy?.stop();
    if (journal) fs.rmSync(path.dirname(journal), { recursive: true, force: true });
  }
}
