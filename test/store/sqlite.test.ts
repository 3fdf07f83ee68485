import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB_FILE, openSqliteStore } from '../../src/store/sqlite.js';
import { loadSqlite } from '../../src/store/sqlite-module.js';
import { storeSuite } from './suite.js';

storeSuite('SQLite', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'genplat-store-'));
    return {
      open: (options) => openSqliteStore(dir, { ...options }),
      async setSchemaVersion(version) {
        const db = new (loadSqlite().DatabaseSync)(join(dir, DB_FILE));
        db.exec(`PRAGMA user_version = ${version}`);
        db.close();
      },
      async exec(sql) {
        const db = new (loadSqlite().DatabaseSync)(join(dir, DB_FILE));
        try {
          db.exec(sql);
        } finally {
          db.close();
        }
      },
      auditTable: 'audit',
      jobsTable: 'jobs',
    };
  },
});
