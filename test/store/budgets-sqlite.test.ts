/** Budgets by period and team on SQLite (budgets-suite.ts). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB_FILE, openSqliteStore } from '../../src/store/sqlite.js';
import { loadSqlite } from '../../src/store/sqlite-module.js';
import { budgetsSuite } from './budgets-suite.js';

budgetsSuite('SQLite', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'genplat-budgets-'));
    const exec = async (sql: string) => {
      const db = new (loadSqlite().DatabaseSync)(join(dir, DB_FILE));
      try {
        db.exec(sql);
      } finally {
        db.close();
      }
    };
    return {
      open: (options) => openSqliteStore(dir, { ...options }),
      setSchemaVersion: (version) => exec(`PRAGMA user_version = ${version}`),
      exec,
      auditTable: 'audit',
      jobsTable: 'jobs',
    };
  },
});
