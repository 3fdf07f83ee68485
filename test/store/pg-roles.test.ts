/**
 * Least privilege on a real PostgreSQL (docs/storage.md): a fresh database and two fresh roles per run — the
 * migration role owns the schema, the runtime role gets `db grant`'s privileges. The server works end to end as
 * the runtime role, and PostgreSQL itself refuses each way a compromised instance could erase the audit or
 * lower the spend the ceilings read. The same attacks run as the owner succeed: the test can fail.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/doctor.js';
import { evaluateAdmission } from '../../src/paid/admission.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { grantDatabaseRole, migrateDatabase } from '../../src/store/db-admin.js';
import { runtimeGrants } from '../../src/store/pg-roles.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { SCHEMA_VERSION, type Store } from '../../src/store/types.js';
import { ROOT } from '../helpers/build.js';
import { execOn } from './pg-helper.js';
import { createRolePair, type RolePair, SCHEMA } from './pg-role-pair.js';
import { intent, rules } from './suite.js';

let pair: RolePair;
let MIGRATOR: string;
let RUNTIME: string;
let migUrl: string;
let rtUrl: string;
let stateDir: string;
let sim: Simulator;
const stores: Store[] = [];

async function open(url: string): Promise<Store> {
  const s = await openPostgresStore(url, { now: () => new Date('2026-03-10T12:00:00.000Z') });
  stores.push(s);
  return s;
}

/** The PostgreSQL error `sql` raises on a plain session of `url`, or 'succeeded'. */
async function attempt(url: string, sql: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
    return 'succeeded';
  } catch (err) {
    return (err as Error).message;
  } finally {
    await c.end();
  }
}

async function count(sql: string): Promise<number> {
  const c = new pg.Client({ connectionString: pair.adminUrl });
  await c.connect();
  try {
    return Number((await c.query<{ n: string }>(sql)).rows[0]?.n);
  } finally {
    await c.end();
  }
}

async function doctorOut(url: string): Promise<string> {
  const lines: string[] = [];
  await runDoctor({
    argv: ['doctor'],
    env: {
      GENPLAT_DATABASE_URL: url,
      GENPLAT_STATE_DIR: stateDir,
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_BASE_URL: sim.baseUrl,
    },
    out: (l) => lines.push(l),
    timeoutMs: 5000,
  });
  return lines.join('\n');
}

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'genplat-roles-'));
  sim = await startSimulator({ timing: 'test' });
  pair = await createRolePair();
  ({ migrator: MIGRATOR, runtime: RUNTIME, migUrl, rtUrl } = pair);
});

afterAll(async () => {
  for (const s of stores) await s.close().catch(() => {});
  await pair.drop();
  await rm(stateDir, { recursive: true, force: true });
  await sim.close();
});

describe('least privilege: migration role and runtime role', () => {
  it('a runtime role never creates or migrates the schema: it names the command to run', async () => {
    await expect(openPostgresStore(rtUrl)).rejects.toThrow(/has no genplat-mcp schema yet.*genplat-mcp db migrate/);
  });

  it('db migrate and db grant, as the migration role; the runtime role may not run them', async () => {
    const report = await migrateDatabase(migUrl);
    expect(report).toMatchObject({ from: 0, to: SCHEMA_VERSION, user: MIGRATOR });
    await expect(grantDatabaseRole(rtUrl, RUNTIME)).rejects.toThrow(/does not own the genplat_\* tables/);
    await expect(grantDatabaseRole(migUrl, MIGRATOR)).rejects.toThrow(/owns the genplat_\* tables/);
    await expect(grantDatabaseRole(migUrl, 'postgres')).rejects.toThrow(/is a superuser/);
    await expect(grantDatabaseRole(migUrl, `nobody_${MIGRATOR}`)).rejects.toThrow(/does not exist/);
    const { statements } = await grantDatabaseRole(migUrl, RUNTIME);
    expect(statements).toEqual(runtimeGrants(RUNTIME, SCHEMA));
  });

  it('the server works end to end as the runtime role: admit, settle, observe, audit appended, shared key', async () => {
    const owner = await open(migUrl);
    const s = await open(rtUrl);
    expect(await s.schemaVersion()).toBe(SCHEMA_VERSION);
    expect((await s.consentKey()).equals(await owner.consentKey())).toBe(true);
    expect((await s.consentKey()).length).toBe(32);
    const token = { value: `nonce-${RUNTIME}`, expiresAt: new Date('2026-03-10T12:05:00.000Z') };
    const res = await s.admit(intent({ owner: 'alice' }), rules({ nonce: token }), evaluateAdmission);
    if (!res.admitted) throw new Error(`not admitted: ${res.reason}`);
    expect((await s.admit(intent({ fingerprint: 'fp-2' }), rules({ nonce: token }), evaluateAdmission)).admitted).toBe(
      false,
    );
    await s.settle(res.record.id, { outcome: 'submitted', status: 'processing', handle: 'actor_video:v1' });
    await s.observe(res.record.id, { status: 'completed', creditsCharged: 80 });
    expect((await s.get('actor_video:v1'))?.creditsCharged).toBe(80);
    expect((await s.auditEvents()).map((e) => e.event)).toEqual(['admit', 'settle', 'observe']);
    expect(await s.spendSince(new Date('2026-03-10T00:00:00.000Z'))).toBe(80);
    expect(await s.tryLease('job-1', 10_000, 'a')).toBe(true);
    expect(await s.tryLease('job-1', 10_000, 'b')).toBe(false);
    expect(await s.role?.()).toEqual({ kind: 'runtime', user: RUNTIME });
    expect(await owner.role?.()).toEqual({ kind: 'owner', user: MIGRATOR, superuser: false });
  });

  it('PostgreSQL refuses the runtime role every way to erase the audit or lower the spend', async () => {
    // A job still running, beside the completed one above: its charge must not be lowered (issue 27 item 6).
    const s = await open(rtUrl);
    const running = await s.admit(intent({ fingerprint: 'fp-running' }), rules(), evaluateAdmission);
    if (!running.admitted) throw new Error(`not admitted: ${running.reason}`);
    await s.settle(running.record.id, { outcome: 'submitted', status: 'processing', handle: 'actor_video:v2' });
    const spent = await s.spendSince(new Date('2026-03-10T00:00:00.000Z'));
    const auditRows = await count(`SELECT count(*) AS n FROM ${SCHEMA}.genplat_audit`);
    const spend = `SELECT sum(estimate_credits) AS n FROM ${SCHEMA}.genplat_jobs`;
    const before = await count(spend);
    expect(auditRows).toBeGreaterThan(0);
    const attacks: [string, RegExp][] = [
      ['ALTER TABLE genplat_audit DISABLE TRIGGER ALL', /must be owner of table genplat_audit/],
      ['ALTER TABLE genplat_audit DISABLE TRIGGER genplat_audit_no_change', /must be owner/],
      ['ALTER TABLE genplat_jobs DISABLE TRIGGER genplat_jobs_fixed', /must be owner/],
      ['DROP TRIGGER genplat_jobs_fixed ON genplat_jobs', /must be owner/],
      [
        'CREATE OR REPLACE FUNCTION genplat_jobs_fixed() RETURNS trigger LANGUAGE sql AS $$ SELECT NULL $$',
        /permission denied for schema|must be owner of function/,
      ],
      ["SET session_replication_role = 'replica'", /permission denied/],
      ["UPDATE genplat_audit SET owner = 'mallory'", /permission denied for table genplat_audit/],
      ['DELETE FROM genplat_audit', /permission denied for table genplat_audit/],
      ['TRUNCATE genplat_audit', /permission denied for table genplat_audit/],
      ['UPDATE genplat_jobs SET estimate_credits = 0', /fixed at admission/],
      ['UPDATE genplat_jobs SET created_at = 0', /fixed at admission/],
      ["UPDATE genplat_jobs SET outcome = 'rejected'", /only a queued or pending record/],
      ['DELETE FROM genplat_jobs', /permission denied for table genplat_jobs/],
      ['TRUNCATE genplat_jobs', /permission denied for table genplat_jobs/],
      ["UPDATE genplat_meta SET value = '1' WHERE key = 'schema_version'", /permission denied for table genplat_meta/],
      ["SELECT setval('genplat_audit_seq_seq', 1)", /permission denied for sequence/],
      ['DROP TABLE genplat_audit', /must be owner of table genplat_audit/],
      ['ALTER TABLE genplat_jobs DROP COLUMN estimate_credits', /must be owner/],
      // The spend columns the ceilings read (issue 27 item 6, migration 7).
      ['UPDATE genplat_jobs SET refunded = 1000000', /a refund cannot exceed the charge/],
      ['UPDATE genplat_jobs SET refunded = charged + 1 WHERE charged IS NOT NULL', /a refund cannot exceed the charge/],
      ['UPDATE genplat_jobs SET charged = 0', /cannot be lowered below its quote/],
      ['ALTER TABLE genplat_jobs DISABLE TRIGGER genplat_jobs_spend', /must be owner/],
      ['DROP TRIGGER genplat_jobs_spend ON genplat_jobs', /must be owner/],
      // A team's spend counts what was admitted under it: the runtime role cannot take a record out of a team.
      ['DELETE FROM genplat_job_teams', /permission denied for table genplat_job_teams/],
      ['UPDATE genplat_job_teams SET team = $$x$$', /permission denied for table genplat_job_teams/],
    ];
    for (const [sql, refusal] of attacks) {
      const answer = await attempt(rtUrl, sql);
      expect(answer, sql).not.toBe('succeeded');
      expect(answer, sql).toMatch(refusal);
    }
    expect(await count(`SELECT count(*) AS n FROM ${SCHEMA}.genplat_audit`)).toBe(auditRows);
    expect(await count(spend)).toBe(before);
    expect(await s.spendSince(new Date('2026-03-10T00:00:00.000Z'))).toBe(spent);
    // 4 guard the jobs and the audit; 5 more the approvals (append-only decisions and audit, a fixed request);
    // 2 the event delivery log (append-only); 2 the teams a record was admitted under (append-only, issue 30).
    expect(await count(`SELECT count(*) AS n FROM pg_trigger WHERE tgname LIKE 'genplat_%' AND tgenabled = 'O'`)).toBe(
      13,
    );
  });

  it('doctor says which role the server has: runtime, owner, or a runtime role missing a grant', async () => {
    const rt = await doctorOut(rtUrl);
    expect(rt).toContain('✓ store role: runtime (least privilege: cannot alter the audit or rewrite spend)');
    expect(rt).toContain('All checks passed.');
    const mig = await doctorOut(migUrl);
    expect(mig).toContain(
      '• store role: owner (can migrate; can alter the audit — use a separate runtime role for a fleet)',
    );
    expect(mig).toContain('All checks passed.');
    await execOn(migUrl, `REVOKE INSERT ON genplat_audit FROM ${RUNTIME}`);
    await execOn(migUrl, `GRANT DELETE ON genplat_audit TO ${RUNTIME}`);
    const limited = await doctorOut(rtUrl);
    expect(limited).toMatch(/✗ store role: runtime .* lacks genplat_audit: INSERT/);
    expect(limited).toContain(`genplat-mcp db grant ${RUNTIME}`);
    await grantDatabaseRole(migUrl, RUNTIME);
    expect(await doctorOut(rtUrl)).toContain('✓ store role: runtime');
  });

  it('docs/storage.md lists the grant statements db grant runs', async () => {
    const doc = await readFile(join(ROOT, 'docs/storage.md'), 'utf8');
    for (const sql of runtimeGrants('genplat_runtime', 'public')) expect(doc).toContain(`${sql};\n`);
  });

  it('on upgrade the runtime role stops with the command to run; db migrate brings it back', async () => {
    // Undo migrations 10, 9, 8, 7, 6, 5 and 4 as an older genplat-mcp left it.
    await execOn(migUrl, 'DROP TABLE genplat_job_teams');
    await execOn(migUrl, 'ALTER TABLE genplat_audit DROP COLUMN teams');
    await execOn(migUrl, 'DROP TABLE genplat_event_attempts, genplat_event_deliveries, genplat_events');
    await execOn(
      migUrl,
      'DROP TABLE genplat_approval_audit, genplat_approval_decisions, genplat_approval_approvers, genplat_approvals',
    );
    await execOn(migUrl, 'DROP FUNCTION genplat_approvals_fixed()');
    await execOn(migUrl, 'DROP TRIGGER genplat_jobs_spend ON genplat_jobs');
    await execOn(migUrl, 'DROP FUNCTION genplat_jobs_spend()');
    await execOn(migUrl, 'DROP INDEX genplat_jobs_queued');
    await execOn(migUrl, 'ALTER TABLE genplat_jobs DROP COLUMN campaign_id, DROP COLUMN campaign_fp');
    await execOn(migUrl, 'DROP TABLE genplat_blob_chunks, genplat_blobs');
    await execOn(migUrl, 'DROP TRIGGER genplat_jobs_fixed ON genplat_jobs');
    await execOn(migUrl, 'DROP FUNCTION genplat_jobs_fixed()');
    await execOn(migUrl, `UPDATE genplat_meta SET value = '3' WHERE key = 'schema_version'`);
    await expect(openPostgresStore(rtUrl)).rejects.toThrow(
      new RegExp(`is at schema 3, this genplat-mcp needs ${SCHEMA_VERSION}.*Run \`genplat-mcp db migrate\``),
    );
    expect(await migrateDatabase(migUrl)).toMatchObject({ from: 3, to: SCHEMA_VERSION });
    const s = await open(rtUrl);
    expect(await s.schemaVersion()).toBe(SCHEMA_VERSION);
    expect(await attempt(rtUrl, 'UPDATE genplat_jobs SET estimate_credits = 0')).toMatch(/fixed at admission/);
  });

  it('the owner role can do what the runtime role cannot: the attacks above are real', async () => {
    // A single-role setup (today's default) keeps working, and keeps this power: why a fleet should split roles.
    expect(await attempt(migUrl, 'ALTER TABLE genplat_audit DISABLE TRIGGER ALL')).toBe('succeeded');
    expect(await attempt(migUrl, 'DELETE FROM genplat_audit')).toBe('succeeded');
    expect(await attempt(migUrl, 'ALTER TABLE genplat_jobs DISABLE TRIGGER genplat_jobs_fixed')).toBe('succeeded');
    expect(await attempt(migUrl, 'UPDATE genplat_jobs SET estimate_credits = 0')).toBe('succeeded');
    expect(await count(`SELECT count(*) AS n FROM ${SCHEMA}.genplat_audit`)).toBe(0);
  });
});
