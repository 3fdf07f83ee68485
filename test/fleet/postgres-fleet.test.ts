/**
 * Three built servers on one PostgreSQL database (GENPLAT_DATABASE_URL), one simulator on loopback: the fleet
 * cases of issue 10 (test/helpers/fleet.ts). A real server, never a mock: the one test/store/pg-helper.ts names
 * (the machine's on 127.0.0.1:5432, else an embedded one: test/helpers/postgres-server.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetSuite } from '../helpers/fleet.js';
import { createTestDatabase, dropTestDatabases } from '../store/pg-helper.js';

fleetSuite({
  label: 'PostgreSQL',
  processes: 3,
  store: async () => ({
    GENPLAT_DATABASE_URL: await createTestDatabase(),
    // The state dir still holds what is per machine (sandbox files); the jobs live in PostgreSQL.
    GENPLAT_STATE_DIR: mkdtempSync(join(tmpdir(), 'genplat-fleet-')),
  }),
  cleanup: dropTestDatabases,
});
