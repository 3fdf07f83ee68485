/** Budgets by period and team on a real PostgreSQL (budgets-suite.ts). */
import { afterAll } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres.js';
import { budgetsSuite } from './budgets-suite.js';
import { createTestSchema, dropTestDatabases, execOn } from './pg-helper.js';

afterAll(dropTestDatabases);

budgetsSuite('PostgreSQL', {
  async create() {
    const url = await createTestSchema();
    return {
      open: (options) => openPostgresStore(url, { ...options }),
      setSchemaVersion: (version) =>
        execOn(url, `UPDATE genplat_meta SET value = $1 WHERE key = 'schema_version'`, [String(version)]),
      exec: (sql) => execOn(url, sql),
      auditTable: 'genplat_audit',
      jobsTable: 'genplat_jobs',
    };
  },
});
