/**
 * The spend report's three surfaces say the same (issue 30 item 5), over real paid calls through the simulator:
 * `genplat-mcp report --csv` (the operator's terminal, every caller) equals the `genplat://spend/report` resource
 * read by a stdio client (the operator's own machine: every caller), figure by figure, by person and by tool;
 * an HTTP caller reading the resource sees their own calls only, never another person's rows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, parseCli } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { loadPeopleFile } from '../../src/people/people-file.js';
import { runReport } from '../../src/report/cli.js';
import { REPORT_FIELDS, TOTAL_KEY } from '../../src/report/format.js';
import { parseReportReaders } from '../../src/report/readers.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { parseCsv } from '../helpers/csv.js';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

let sim: Simulator;
let stateDir: string;
let peopleFile: string;
const opened: Harness[] = [];

async function as(owner: string | undefined, o: { readers?: string; groups?: string[] } = {}): Promise<Harness> {
  const people = loadPeopleFile(peopleFile, []);
  const problems: string[] = [];
  const reportReaders = parseReportReaders(o.readers, problems);
  expect(problems).toEqual([]);
  const h = await startHarness({
    sim,
    stateDir,
    ...(owner ? { owner } : {}),
    ...(owner && o.groups ? { person: { owner, groups: o.groups } } : {}),
    config: { people, priceTable: { animate_gesture: 100 }, ...(reportReaders ? { reportReaders } : {}) },
  });
  opened.push(h);
  return h;
}

async function readReport(h: Harness, query: string): Promise<Record<string, unknown> & { rows: Row[] }> {
  const r = await h.client.readResource({ uri: `genplat://spend/report${query}` });
  return JSON.parse((r.contents[0] as { text: string }).text);
}

type Row = Record<(typeof REPORT_FIELDS)[number], string | number>;

async function cliCsv(args: string[]): Promise<string> {
  const cli = parseCli(['report', ...args]);
  const config = loadConfig(cli, { GENPLAT_STATE_DIR: stateDir, GENPLAT_PEOPLE: peopleFile });
  let out = '';
  const code = await runReport(config, cli.report!, createLogger('error'), (c) => {
    out += c;
  });
  expect(code).toBe(0);
  return out;
}

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
  stateDir = mkdtempSync(join(tmpdir(), 'genplat-report-'));
  peopleFile = join(stateDir, 'people.json');
  writeFileSync(
    peopleFile,
    JSON.stringify({
      'token:alice': { name: 'Alice', groups: ['video'] },
      'token:bob': { name: 'Bob', groups: ['audio', 'video'] },
    }),
  );
  const alice = await as('token:alice');
  for (const call of [
    ['create_talking_video', { avatar_id: 'av_ava', voice_script: 'Hi.' }],
    ['animate_gesture', { prompt: 'waves', image_url: 'https://cdn.example.com/p.png' }],
  ] as const) {
    expect(structured(await alice.call(call[0], call[1])).status).toBe('submitted');
  }
  const bob = await as('token:bob');
  expect(structured(await bob.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Yo.' })).status).toBe(
    'submitted',
  );
});

afterAll(async () => {
  for (const h of opened) await h.close();
  await sim.close();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('genplat-mcp report and genplat://spend/report', () => {
  it('the CLI CSV equals the resource JSON, figure by figure', async () => {
    const operator = await as(undefined);
    for (const by of ['person', 'tool', 'team', 'day'] as const) {
      const json = await readReport(operator, `?by=${by}`);
      expect(json.scope).toBe('every caller');
      const [header, ...lines] = parseCsv(await cliCsv(['--by', by, '--csv']));
      expect(header).toEqual([...REPORT_FIELDS]);
      const total = { key: TOTAL_KEY, label: TOTAL_KEY, ...(json.total as object) } as Row;
      const expected = [...json.rows, total].map((r) => REPORT_FIELDS.map((f) => String(r[f])));
      expect(lines, by).toEqual(expected);
    }
    const byPerson = await readReport(operator, '?by=person');
    expect(byPerson.rows.map((r) => [r.key, r.label, r.calls])).toEqual([
      ['token:alice', 'Alice', 2],
      ['token:bob', 'Bob', 1],
    ]);
    expect(byPerson.total).toMatchObject({ calls: 3, quoted_credits: 300 });
    // Bob is in two teams: his call is in both rows, and said so.
    const byTeam = await readReport(operator, '?by=team');
    expect(byTeam.rows.map((r) => [r.key, r.calls])).toEqual([
      ['video', 3],
      ['audio', 1],
    ]);
    expect(byTeam).toMatchObject({ multi_team_calls: 1, note: expect.stringMatching(/more than the total/) });
  });

  it('an HTTP caller reads their own calls only', async () => {
    const bob = await as('token:bob');
    const mine = await readReport(bob, '?by=person');
    expect(mine.scope).toBe('your calls');
    expect(mine.rows.map((r) => r.key)).toEqual(['token:bob']);
    expect(mine.total).toMatchObject({ calls: 1 });
    for (const by of ['team', 'tool', 'month']) {
      const text = JSON.stringify(await readReport(bob, `?by=${by}`));
      expect(text).not.toMatch(/alice/i);
    }
  });

  it('a report reader (GENPLAT_REPORT_READERS, by id or by verified group) reads every caller; others do not', async () => {
    const lead = await as('token:lead', { readers: 'token:lead,group:finance' });
    const all = await readReport(lead, '?by=person');
    expect(all.scope).toBe('every caller');
    expect(all.rows.map((r) => r.key)).toEqual(['token:alice', 'token:bob']);
    const finance = await as('token:fin', { readers: 'token:lead,group:finance', groups: ['finance'] });
    expect((await readReport(finance, '?by=person')).rows.map((r) => r.key)).toEqual(['token:alice', 'token:bob']);
    // Listed nowhere, in another group: their own calls only (none).
    const other = await as('token:zed', { readers: 'token:lead,group:finance', groups: ['audio'] });
    const own = await readReport(other, '?by=person');
    expect(own.scope).toBe('your calls');
    expect(own.rows).toEqual([]);
  });

  it('GENPLAT_REPORT_READERS: a bad entry is named with its rule', () => {
    const problems: string[] = [];
    parseReportReaders('token:lead, group:bad group ,not an id', problems);
    expect(problems).toEqual([
      'GENPLAT_REPORT_READERS: "group:bad group": a group must be 1-64 letters, digits or . _ -',
      'GENPLAT_REPORT_READERS: "not an id": not an owner id (e.g. token:lead, slack:T1:U2) nor group:<name>',
    ]);
  });

  it('a bad selection is refused naming the field; by completes', async () => {
    const operator = await as(undefined);
    const done = await operator.client.complete({
      ref: { type: 'ref/resource', uri: 'genplat://spend/report{?by,since,until}' },
      argument: { name: 'by', value: 'w' },
    });
    expect(done.completion.values).toEqual(['week']);
    await expect(operator.client.readResource({ uri: 'genplat://spend/report?by=year' })).rejects.toThrow(
      /"by": must be one of person, team, tool, day, week, month/,
    );
  });
});
