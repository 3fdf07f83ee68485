/**
 * Review 7: a person's day budget set in the budgets file (GENPLAT_BUDGETS `people.<id>.day`) is refused naming
 * that file, not GENPLAT_USER_BUDGETS: the operator told to raise it there would have the start refused
 * (budgets-file.ts `budgetConflicts`: the same id's day in both places). Real config loading and a real store.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, parseCli } from '../../src/config.js';
import { ConfigurationError } from '../../src/errors.js';
import { evaluateAdmission } from '../../src/paid/admission.js';
import { admitRules } from '../../src/paid/guard.js';
import { refusalError } from '../../src/paid/wording.js';
import { newRecord, type TestDir, testDir } from '../helpers/store-helpers.js';

const REAL = { GENPLAT_API_KEY: 'k'.repeat(32), GENPLAT_BASE_URL: 'https://api.example.com/v1' };
let dir: string;
let store: TestDir;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genplat-r7-wording-'));
  store = await testDir();
});
afterAll(async () => {
  await store.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe("a person's day budget from the budgets file", () => {
  it('is refused naming GENPLAT_BUDGETS, and the advice is one the start accepts', async () => {
    const budgets = join(dir, 'budgets.yaml');
    await writeFile(budgets, 'people:\n  token:alice: { day: 500 }\n');
    const config = loadConfig(parseCli([]), { ...REAL, GENPLAT_BUDGETS: budgets });
    const clock = Date.parse('2026-11-20T10:00:00.000Z');
    const s = await store.open({ now: () => new Date(clock) });
    const call = (fp: string, credits: number) =>
      s.admit(
        newRecord({ owner: 'token:alice', fingerprint: fp, estimate: { ...newRecord().estimate!, credits } }),
        admitRules({ config, now: () => clock }, { owner: 'token:alice', allowDuplicate: true }, { fingerprint: '' }),
        evaluateAdmission,
      );
    expect((await call('f1', 400)).admitted).toBe(true);
    const refused = await call('f2', 200);
    if (refused.admitted || refused.reason !== 'per_user_day') throw new Error(JSON.stringify(refused));
    const err = refusalError('t', refused);
    expect(err.message).toContain('GENPLAT_BUDGETS');
    expect(err.message).not.toContain('GENPLAT_USER_BUDGETS');
    expect(err.nextStep).not.toContain('GENPLAT_USER_BUDGETS');
    // What the old advice led to: the start refuses the same id's day in both places.
    expect(() =>
      loadConfig(parseCli([]), {
        ...REAL,
        GENPLAT_BUDGETS: budgets,
        GENPLAT_USER_BUDGETS: JSON.stringify({ 'token:alice': 1000 }),
      }),
    ).toThrow(ConfigurationError);
  });
});
