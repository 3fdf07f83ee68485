/**
 * Two built servers (separate processes, as Claude Desktop and Claude Code would each start one) on the SAME
 * state dir (SQLite `genplat.db`). The duplicate guard, the per-day ceiling and single-use tokens are decided
 * inside `store.admit`'s `BEGIN IMMEDIATE` transaction, so SQLite serializes the processes: exactly one POST
 * per race. The same cases run on PostgreSQL with three processes (test/fleet/postgres-fleet.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetSuite } from '../helpers/fleet.js';

const base = mkdtempSync(join(tmpdir(), 'genplat-two-servers-'));

fleetSuite({
  label: 'SQLite',
  processes: 2,
  store: async (name) => ({ GENPLAT_STATE_DIR: join(base, name) }),
  cleanup: async () => rmSync(base, { recursive: true, force: true }),
});
