/**
 * Imported FIRST by the bin (`index.ts`): ES modules evaluate in import order, so this stops an old Node
 * with one clear line on stderr before any other module runs (and before anything could fail obscurely).
 * The store loads `node:sqlite` at run time for the same reason: a static import would fail at link time.
 */
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.version);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
