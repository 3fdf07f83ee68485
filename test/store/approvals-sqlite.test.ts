import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB_FILE, openSqliteStore } from '../../src/store/sqlite.js';
import { loadSqlite } from '../../src/store/sqlite-module.js';
import { approvalSuite } from './approvals-suite.js';

approvalSuite('SQLite', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'genplat-approvals-'));
    return {
      open: () => openSqliteStore(dir),
      async exec(sql) {
        const db = new (loadSqlite().DatabaseSync)(join(dir, DB_FILE));
        try {
          db.exec(sql);
        } finally {
          db.close();
        }
      },
      prefix: '',
    };
  },
});
