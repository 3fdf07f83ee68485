/**
 * `submission:<store id>`: a submission the platform never gave an id for (outcome unknown, rejected, never
 * sent), or a job whose platform id no handle can carry (the store record keeps the platform ref).
 * Store only: no endpoint, no simulator job.
 */
import { defineKind, singleId } from './define.js';

export default defineKind({
  kind: 'submission',
  handleShape: '<store id>',
  ...singleId('submission'),
  status: null,
  submits: [],
  sim: null,
});
