/**
 * The spend report View (issue 30 item 5) in a real Chromium, embedded by the test host through the ext-apps
 * bridge: it reads `genplat://spend/report` through the host (resources/read) from the real server after real
 * paid calls on the simulator, and shows a table whose rows and total equal the resource's figures and a chart
 * with one bar per row; the switch re-reads the report grouped by tool. No timing assertions.
 */
import type { Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEND_REPORT_URI } from '../../src/apps/uris.js';
import { APPS_HOST, type Harness, startHarness, structured } from '../helpers/harness.js';
import { type BrowserHost, startBrowserHost } from './browser-host.js';

declare const document: any;
const WAIT = { timeout: 90_000, polling: 250 } as const;
const FIGURES = ['calls', 'quoted_credits', 'charged_credits', 'refunded_credits', 'counted_credits'] as const;

let h: Harness;
let host: BrowserHost;

type Figures = Record<(typeof FIGURES)[number], number>;
type Report = { by: string; rows: (Figures & { key: string })[]; total: Figures };

async function viewFrame(): Promise<Frame> {
  for (let i = 0; i < 200; i++) {
    const f = host.page.frames().find((x) => x !== host.page.mainFrame());
    if (f && (await f.evaluate(() => document.readyState).catch(() => '')) === 'complete') return f;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no view frame');
}

async function resource(by: string): Promise<Report> {
  const r = await h.client.readResource({ uri: `genplat://spend/report?by=${by}` });
  return JSON.parse((r.contents[0] as { text: string }).text) as Report;
}

/** What the View shows: each row's key and figures, the total row, the chart's bars. */
async function shown(f: Frame) {
  return f.evaluate(
    (fields) => {
      const num = (t: string) => Number(t.replace(/,/g, ''));
      const figures = (tr: any) =>
        Object.fromEntries(fields.map((k: string) => [k, num(tr.querySelector(`td[data-field="${k}"]`).textContent)]));
      return {
        rows: [...document.querySelectorAll('tbody tr.row')].map((tr: any) => ({
          key: tr.dataset.key,
          ...figures(tr),
        })),
        total: figures(document.querySelector('tfoot tr.total')),
        bars: [...document.querySelectorAll('svg rect.bar')].map((b: any) => [b.dataset.key, Number(b.dataset.value)]),
      };
    },
    FIGURES as unknown as string[],
  );
}

function expectSame(view: Awaited<ReturnType<typeof shown>>, report: Report): void {
  expect(view.rows).toEqual(
    report.rows.map((r) => ({ key: r.key, ...Object.fromEntries(FIGURES.map((k) => [k, r[k]])) })),
  );
  expect(view.total).toEqual(Object.fromEntries(FIGURES.map((k) => [k, report.total[k]])));
  // Not team (where a call may count twice): the rows add up to the total the View shows.
  if (report.by !== 'team')
    for (const k of FIGURES)
      expect(
        view.rows.reduce((n, r) => n + Number((r as Record<string, unknown>)[k]), 0),
        k,
      ).toBe(view.total[k]);
  expect(view.bars).toEqual(report.rows.map((r) => [r.key, r.counted_credits]));
}

describe('the spend report View in chromium', () => {
  beforeAll(async () => {
    h = await startHarness({ clientCapabilities: APPS_HOST, config: { priceTable: { animate_gesture: 100 } } });
    for (const script of ['One.', 'Two.'])
      expect(
        structured(await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: script })).status,
      ).toBe('submitted');
    expect(
      structured(await h.call('animate_gesture', { prompt: 'waves', image_url: 'https://cdn.example.com/p.png' }))
        .status,
    ).toBe('submitted');
    host = await startBrowserHost(h.client);
  }, 120_000);
  afterAll(async () => {
    await host?.close();
    await h?.close();
  });

  it('shows the table and a bar per row, totals equal to the resource; the switch regroups by tool', async () => {
    await host.show(SPEND_REPORT_URI, { content: [] });
    const f = await viewFrame();
    await f.waitForFunction(() => document.querySelector('tfoot tr.total') !== null, undefined, WAIT);
    const byPerson = await resource('person');
    expect(byPerson.total.calls).toBe(3);
    expectSame(await shown(f), byPerson);

    await f.click('button[data-by="tool"]');
    await f.waitForFunction(
      () =>
        document.querySelector('button[data-by="tool"]')?.getAttribute('aria-pressed') === 'true' &&
        document.querySelectorAll('tbody tr.row').length === 2,
      undefined,
      WAIT,
    );
    const byTool = await resource('tool');
    expect(byTool.rows.map((r) => r.key).sort()).toEqual(['animate_gesture', 'create_talking_video']);
    expectSame(await shown(f), byTool);
    const reads = await host.page.evaluate(() => (globalThis as unknown as { resourceReads: string[] }).resourceReads);
    expect(reads).toEqual(['genplat://spend/report?by=person', 'genplat://spend/report?by=tool']);
  }, 180_000);
});
