/**
 * Imported FIRST by the bin (`index.ts`): ES modules evaluate in import order, so this stops an old Node
 * with one clear line on stderr before any other module runs (and before anything could fail obscurely).
 * The store loads `node:sqlite` at run time for the same reason: a static import would fail at link time.
 */
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.version);
// `install` is let through: it is how a user whose `node` is old writes a newer one into the host's config
// (src/install/, which loads nothing that needs Node 22). The first word that is not a flag is the command.
const command = process.argv.slice(2).find((a) => !a.startsWith('-'));
if (problem && command !== 'install') {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
