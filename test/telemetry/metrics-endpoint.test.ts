/**
 * The Prometheus endpoint (issue 30 item 2, docs/operate.md "Metrics") on the real HTTP server with the real SDK
 * client against the simulator: `/metrics` answers only its bearer token (401 without or with a wrong one, 404
 * when GENPLAT_METRICS_TOKEN is unset), and its counters equal what a scripted run did: tool calls by tool and
 * outcome, admissions refused by rule, credits quoted and charged once the job completed, platform responses.
 * No secret (API key, HTTP tokens, the metrics token) appears in its text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFixture, sc, startHttpFixture, TOKEN_A, TOKEN_B } from '../http/helpers.js';
import { parseProm, scrape, sum } from './prom-text.js';

const METRICS_TOKEN = 'metrics-scraper-0123456789';

describe('/metrics when GENPLAT_METRICS_TOKEN is unset', () => {
  let f: HttpFixture;
  beforeAll(async () => {
    f = await startHttpFixture();
  });
  afterAll(() => f.close());

  it('is not there (404), with or without a token', async () => {
    expect((await scrape(f)).status).toBe(404);
    expect((await scrape(f, `Bearer ${METRICS_TOKEN}`)).status).toBe(404);
  });
});

describe('/metrics with GENPLAT_METRICS_TOKEN', () => {
  let f: HttpFixture;
  beforeAll(async () => {
    // A gesture is quoted at the per-call ceiling (its price is published only as it is charged): 150; the day
    // holds two of them, or one and a 100-credit talking video, not more.
    f = await startHttpFixture({
      env: {
        GENPLAT_METRICS_TOKEN: METRICS_TOKEN,
        GENPLAT_MAX_CREDITS_PER_CALL: '150',
        GENPLAT_MAX_CREDITS_PER_DAY: '300',
      },
    });
  });
  afterAll(() => f.close());

  it('refuses a scrape without the token, with a wrong one, and with an MCP token (401)', async () => {
    expect((await scrape(f)).status).toBe(401);
    expect((await scrape(f, 'Bearer metrics-scraper-0123456780')).status).toBe(401);
    expect((await scrape(f, `Bearer ${TOKEN_A}`)).status).toBe(401);
    expect((await scrape(f, METRICS_TOKEN)).status).toBe(401);
  });

  it('counts what a scripted run did, and shows no secret', async () => {
    const c = await f.connect(TOKEN_A);
    const outcomes: { tool: string; isError: boolean }[] = [];
    const call = async (tool: string, args: Record<string, unknown>) => {
      const r = await c.call(tool, args);
      outcomes.push({ tool, isError: r.isError === true });
      return r;
    };
    // A gesture: the simulator reports its charge on the status read (a talking video's status carries none).
    const args = { prompt: 'waves at the camera, then smiles', image_url: 'https://cdn.example.com/people/ana.jpg' };
    const confirmed = async (tool: string, a: Record<string, unknown>) => {
      const quote = sc(await call(tool, a));
      expect(quote.status).toBe('confirmation_required');
      const done = sc(await call(tool, { ...a, confirmation_token: quote.confirmation_token as string }));
      expect(done.status).toBe('submitted');
      return { handle: done.handle as string, quoted: (quote.estimate as { credits: number }).credits };
    };
    const gesture = await confirmed('animate_gesture', args);
    // The same request while its job is open: refused as a duplicate (the day still has room for it).
    expect((await call('animate_gesture', args)).isError).toBe(true);
    const video = await confirmed('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Counted.' });
    // Another gesture no longer fits the day: refused per_day.
    expect((await call('animate_gesture', { ...args, prompt: 'nods twice, then smiles' })).isError).toBe(true);
    // A read that fails (an unknown handle) and one that works.
    expect((await call('get_job', { handle: 'video:does-not-exist' })).isError).toBe(true);
    expect((await call('list_avatars', {})).isError).toBeFalsy();
    const created = { handle: gesture.handle };
    // resources/read in the conventions' histogram too: one that answers, one that fails (a job nobody has).
    await c.client.readResource({ uri: 'genplat://avatars' });
    await expect(c.client.readResource({ uri: 'genplat://jobs/video:nobody-has-it' })).rejects.toThrow();
    let charged: number | undefined;
    for (let i = 0; i < 20 && charged === undefined; i++) {
      const w = sc(await call('wait_for_jobs', { handles: [created.handle], max_wait_s: 10 }));
      const job = (w.jobs as { status: string; credits_charged?: number }[])[0]!;
      if (job.status === 'completed') charged = job.credits_charged ?? 0;
    }
    expect(charged).toBeGreaterThan(0);

    const { status, text } = await scrape(f, `Bearer ${METRICS_TOKEN}`);
    expect(status).toBe(200);
    const s = parseProm(text);
    if (process.env.DUMP_METRICS) console.error(text);

    // Tool calls: per tool, the number made; isError results are the calls not counted ok / input_required.
    for (const tool of new Set(outcomes.map((o) => o.tool))) {
      const made = outcomes.filter((o) => o.tool === tool);
      expect(sum(s, 'genplat_tool_calls_total', { gen_ai_tool_name: tool }), tool).toBe(made.length);
      const failed = made.length - sum(s, 'genplat_tool_calls_total', { gen_ai_tool_name: tool, outcome: 'ok' });
      expect(failed, tool).toBe(made.filter((o) => o.isError).length);
    }
    expect(sum(s, 'genplat_tool_calls_total', { outcome: 'refused' })).toBe(2);
    // The MCP convention's histogram: one per call, tool_error for each isError.
    expect(sum(s, 'mcp_server_operation_duration_count', { mcp_method_name: 'tools/call' })).toBe(outcomes.length);
    expect(sum(s, 'mcp_server_operation_duration_count', { error_type: 'tool_error' })).toBe(
      outcomes.filter((o) => o.isError).length,
    );
    expect(sum(s, 'mcp_server_operation_duration_count', { mcp_method_name: 'resources/read' })).toBe(2);
    expect(
      s
        .filter(
          (x) => x.name === 'mcp_server_operation_duration_count' && x.labels.mcp_method_name === 'resources/read',
        )
        .map((x) => x.labels.error_type ?? 'ok')
        .sort(),
    ).toEqual(['-32602', 'ok']);
    // Refusals by rule.
    expect(sum(s, 'genplat_admission_refusals_total', { rule: 'duplicate' })).toBe(1);
    expect(sum(s, 'genplat_admission_refusals_total', { rule: 'per_day' })).toBe(1);
    expect(sum(s, 'genplat_admission_refusals_total')).toBe(2);
    // Credits: the accepted quote, and the charge once the job completed.
    expect(sum(s, 'genplat_credits_quoted_total', { gen_ai_tool_name: 'animate_gesture' })).toBe(gesture.quoted);
    expect(sum(s, 'genplat_credits_quoted_total', { gen_ai_tool_name: 'create_talking_video' })).toBe(video.quoted);
    expect(sum(s, 'genplat_credits_charged_total', { gen_ai_tool_name: 'animate_gesture' })).toBe(charged);
    // Platform responses by route template: the one POST the simulator saw.
    expect(
      sum(s, 'genplat_platform_request_duration_count', {
        http_request_method: 'POST',
        http_route: '/gestures/generate',
      }),
    ).toBe(f.sim.log.count({ method: 'POST', path: '/gestures/generate' }));
    // The store was timed; the gauges read it.
    expect(sum(s, 'genplat_store_operation_duration_count', { db_operation_name: 'admitBundle' })).toBe(2);
    expect(s.some((x) => x.name === 'genplat_events_outbox_depth')).toBe(true);

    for (const secret of [f.sim.apiKey, TOKEN_A, TOKEN_B, METRICS_TOKEN]) expect(text).not.toContain(secret);
  });
});
