/**
 * The HTML report's stalls and browser/proxy breakdown per cell, and the naive-relay
 * cells marked in its charts (renderHtmlReport on synthetic results, no browser).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderHtmlReport } from '../../src/lab/html-report.js';
import { formatTable } from '../../src/lab/report.js';
import { parseLabResult } from '../../src/lab/result-file.js';
import { damageOf } from './damage.js';
import { fakeResult, NAGLE_STORY, WALKTHROUGH } from './fake-result.js';

/** The table row of `cell` in the "Stalls and where the browser’s time went" table. */
function detailRow(html: string, cell: string): string {
  const section = html.slice(html.indexOf('<h2>Stalls and where'));
  const table = section.slice(0, section.indexOf('</table>'));
  const row = table.split('<tr>').find((r) => r.startsWith(`<td class="mono">${cell}<`));
  if (!row) throw new Error(`no row for ${cell}`);
  return row;
}

/** The <svg> whose aria-label starts with `title`. */
function svg(html: string, title: string): string {
  const at = html.indexOf(`aria-label="${title}`);
  expect(at, title).toBeGreaterThan(0);
  const start = html.lastIndexOf('<svg', at);
  return html.slice(start, html.indexOf('</svg>', at) + 6);
}

const cellsText = (s: string) => s.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('HTML report: stalls and breakdown per cell', () => {
  const html = renderHtmlReport(fakeResult(NAGLE_STORY));

  it('gives each cell its stalls per run (median, range) and the median wall-clock time stalled', () => {
    expect(html).toContain('<h2>Stalls and where the browser’s time went</h2>');
    expect(cellsText(detailRow(html, 'proxy+h1+intercept+naive+nagle'))).toMatch(/ 189 \(184–194\) 1510 ms /);
    expect(cellsText(detailRow(html, 'proxy+h1+intercept'))).toMatch(/ 0 \(0–2\) 0\.0 ms /);
    // A cell that counted stalls without their time (results.json from before stallWallMs): the count, no time.
    expect(cellsText(detailRow(html, 'proxy+h1+tunnel'))).toMatch(/ 0 – /);
    // Direct cells have no proxy socket timeline: no count.
    expect(cellsText(detailRow(html, 'direct+h1'))).toMatch(/direct\+h1 – – /);
    const chart = svg(html, 'Nagle/delayed-ACK stalls per run');
    expect(chart).toContain('proxy+h1+intercept+naive+nagle: median 189, min 184, max 194');
    expect(chart).not.toContain('direct+h1');
  });

  it('says who used the CPU per load under each cell that measured it, and nothing for the others', () => {
    expect(cellsText(html)).toContain(
      'CPU per load: browser 1850 ms (waited 950 ms for a core) · proxy 182 ms (main thread 122 ms, waited 450 ms for a core) · ' +
        'test site 50 ms (main thread 31 ms, waited 11 ms for a core)',
    );
    expect(html.match(/data-cpu>/g)).toHaveLength(2);
  });

  it("names the browsers' CPU priority in the machine table (--browser-nice)", () => {
    expect(html).toContain('<th>Browser priority</th><td>browsers at normal priority (--browser-nice)</td>');
    const niced = fakeResult(NAGLE_STORY);
    niced.config.browserNice = 10;
    expect(renderHtmlReport(niced)).toContain('<th>Browser priority</th><td>browsers at nice 10 (--browser-nice)</td>');
  });

  it('gives the five parts of the breakdown per cell, as a table and a stacked bar with a legend', () => {
    const row = cellsText(detailRow(html, 'proxy+h1+intercept+naive+nagle'));
    expect(row).toMatch(/ 2\.0 ms 6\.0 ms 2\.0 ms 22\.0 ms 44\.0 ms 15\/15 in 5 runs /);
    expect(cellsText(detailRow(html, 'proxy+h1+intercept'))).toMatch(/ 2\.2 ms 6\.0 ms 1\.5 ms 22\.0 ms 3\.0 ms /);
    const chart = svg(html, 'Where the browser’s time went');
    for (const label of ['browser queue', 'client leg', 'proxy', 'upstream', 'back']) expect(chart).toContain(`>${label}</text>`);
    // Three aligned cells × five parts.
    expect(chart.match(/<rect [^>]*height="16"/g)).toHaveLength(15);
    expect(chart).toContain('proxy+h1+intercept+naive+nagle: back 44.0 ms');
    // The bar's total is written after it: 2 + 6 + 2 + 22 + 44.
    expect(chart).toMatch(/class="val">76\.0 ms/);
  });

  it('says when a cell has no breakdown because no alignment was made, and why', () => {
    const none = 'No breakdown: no alignment was made — ';
    expect(cellsText(detailRow(html, 'direct+h1'))).toContain(`${none}a direct cell has no proxy HAR to align the browser’s with.`);
    expect(cellsText(detailRow(html, 'proxy+h1+tunnel'))).toContain(`${none}a tunnel hides the requests inside TLS from the proxy`);
    const chart = svg(html, 'Where the browser’s time went');
    expect(chart).toContain('class="missing">No breakdown: no alignment was made (direct cell)</text>');
    expect(chart).toContain('class="missing">No breakdown: no alignment was made (tunnel)</text>');
    // An intercepting cell whose runs were not aligned.
    const unaligned = renderHtmlReport(fakeResult(WALKTHROUGH));
    expect(cellsText(detailRow(unaligned, 'proxy+h2+intercept'))).toContain(`${none}no run was aligned`);
    expect(unaligned).toContain('No cell counted stalls');
    expect(unaligned).not.toContain('naive relay');
    // A breakdown a hand edit broke is not "no alignment": the report says it cannot be read.
    const edited = fakeResult(NAGLE_STORY);
    (edited.cells[2] as { breakdown: unknown }).breakdown = { median: { queue: 'x' } };
    expect(cellsText(detailRow(renderHtmlReport(edited), 'proxy+h1+intercept'))).toContain(
      'The breakdown stored in results.json cannot be read.',
    );
  });

  it('marks the naive-relay cells: tagged in the table, striped and tagged in every chart', () => {
    expect(detailRow(html, 'proxy+h1+intercept+naive+nagle')).toContain('<span class="tag naive"');
    expect(detailRow(html, 'proxy+h1+intercept')).not.toContain('naive relay');
    // The results table too.
    const results = html.slice(html.indexOf('<h2>Results</h2>'), html.indexOf('<h2>Charts</h2>'));
    expect(results.match(/<span class="tag naive"/g)).toHaveLength(2);
    for (const title of ['Page load time', 'TTFB', 'Nagle/delayed-ACK stalls', 'Where the browser’s time went']) {
      expect(svg(html, title).match(/class="tag-naive"> · naive relay</g), title).toHaveLength(2);
    }
    // Stripes on the two naive bars of the load chart, on no other.
    expect(svg(html, 'Page load time').match(/<g class="stripe"/g)).toHaveLength(2);
    expect(html).toMatch(/Striped bars tagged “naive relay”/);
    // Still one self-contained file: the stripes are lines, not a pattern referenced with url(#…).
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|\b(src|href)=/i);
  });

  it('the terminal table keeps its stalls column', () => {
    const line = formatTable(fakeResult(NAGLE_STORY))
      .split('\n')
      .find((l) => l.startsWith('proxy+h1+intercept+naive+nagle '));
    expect(line).toMatch(/ 189 \(184–194\) /);
  });

  it('damaged stalls, breakdowns and alignments (a hand edit, an old version): the report and the table are still written', () => {
    // Damage only inside cells[].stalls, cells[].breakdown and runs' proxy/alignment, where the generic fuzz rarely lands.
    const { damage, apply } = damageOf(fakeResult(NAGLE_STORY), (p) =>
      ['stalls', 'breakdown', 'proxy', 'alignment'].includes(String(p[2])),
    );
    let read = 0;
    fc.assert(
      fc.property(damage, (edits) => {
        let result;
        try {
          result = parseLabResult(apply(edits));
        } catch (err) {
          expect((err as { code?: string }).code).toBe('NL_LAB_RESULT_INVALID');
          return;
        }
        read++;
        expect(renderHtmlReport(result)).toContain('<h2>Stalls and where the browser’s time went</h2>');
        formatTable(result);
      }),
      { seed: 42, numRuns: 300 },
    );
    expect(read).toBeGreaterThan(0);
  });
});
