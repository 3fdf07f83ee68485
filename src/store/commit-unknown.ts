/**
 * The answer to a transaction's COMMIT was lost (issue 27 item 2): the connection broke, the statement timed out
 * or the disk failed while the COMMIT was on its way, so the store cannot say whether the transaction took
 * effect. Every other failure of a store transaction happened before COMMIT was sent and was rolled back: the
 * caller may say "not written". Thrown by both stores' `tx` (sqlite.ts, postgres.ts); the paid path answers an
 * admission that ends this way as "may have been admitted" (src/paid/admission-answer.ts), never "try again".
 */
export class CommitUnknownError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('the store did not answer the COMMIT: the transaction may or may not have been written', options);
    this.name = 'CommitUnknownError';
  }
}
