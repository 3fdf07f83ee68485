/** Text helpers shared by the client, the job handles and the simulator. */

/**
 * Lone surrogates → U+FFFD, which is what any UTF-8 wire (a URL, a query string) makes of them.
 * String#toWellFormed does the same but is ES2024, above our `lib`.
 */
export function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
