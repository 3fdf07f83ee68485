/**
 * The approval page's HTML: self-contained (no script at all, no external style, font or image) under a CSP
 * whose only style is this response's, by nonce; the one form posts back to the link itself (`form-action
 * 'self'`). The card is the consent card (src/paid/consent-card.ts): tool, summary, price with its bound, how it
 * was computed, and every field sent, each in full.
 */
import { randomBytes } from 'node:crypto';
import type { ConsentCard } from '../../paid/consent-card.js';
import type { ApprovalPerson, ApprovalView } from './desk.js';

export interface Html {
  html: string;
  csp: string;
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const STYLE = `body{font:16px system-ui,sans-serif;margin:2rem auto;max-width:44rem;padding:0 1rem;color:#222}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f5f5f5;padding:.5rem;border-radius:6px;margin:0}
.price{font-size:1.1rem;font-weight:600}.unbounded{color:#b00020}
form{display:flex;gap:1rem;margin-top:1.5rem}button{font-size:1rem;padding:.6rem 1.4rem;border-radius:8px;border:1px solid #888;cursor:pointer}
#approve{background:#0a7d2c;color:#fff;border-color:#0a7d2c}#message{font-size:1.1rem}`;

function doc(title: string, body: string, form: boolean): Html {
  const nonce = randomBytes(16).toString('base64');
  return {
    csp: `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${form ? "'self'" : "'none'"}; base-uri 'none'; frame-ancestors 'none'`,
    html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${esc(title)}</title><style nonce="${nonce}">${STYLE}</style></head><body>${body}</body></html>`,
  };
}

const who = (p: ApprovalPerson) => (p.name ? `${esc(p.name)} (${esc(p.id)})` : esc(p.id));
const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** A page that only says something (refused, expired, decided, failed sign-in). */
export function messagePage(message: string, title = 'Approval'): Html {
  return doc(title, `<h1>${esc(title)}</h1><p id="message" role="status">${esc(message)}</p>`, false);
}

function cardHtml(card: ConsentCard): string {
  const fields = card.fields
    .map((f) => `<dt>${esc(f.name)}</dt><dd>${f.long ? `<pre>${esc(f.value)}</pre>` : esc(f.value)}</dd>`)
    .join('');
  return `<section id="card"><h2>${esc(card.tool)}: ${esc(card.summary)}</h2>
<p class="price${card.bounded ? '' : ' unbounded'}" id="price">Cost: ${esc(card.price)}.</p>
<p id="basis">How: ${esc(card.basis)}.</p>
<h3>Sent to the platform (${card.fields.length} field${card.fields.length === 1 ? '' : 's'})</h3>
<dl id="fields">${fields}</dl></section>`;
}

/**
 * The approval: the card, who asked, who may decide, until when, who is signed in; the buttons only when
 * `formToken` is given (an approver who may decide), else `note` says why not.
 */
export function approvalPage(o: {
  view: ApprovalView;
  signedIn: ApprovalPerson;
  formToken?: string | undefined;
  note?: string | undefined;
}): Html {
  const v = o.view;
  const buttons = o.formToken
    ? `<form method="post"><input type="hidden" name="form_token" value="${esc(o.formToken)}">
<button id="approve" name="decision" value="approve" type="submit">Approve</button>
<button id="decline" name="decision" value="decline" type="submit">Decline</button></form>`
    : `<p id="message" role="status">${esc(o.note ?? '')}</p>`;
  return doc(
    `Approve ${v.card.tool}?`,
    `<h1>Approval requested</h1>
<dl id="facts"><dt>Requested by</dt><dd id="requester">${who(v.requester)}</dd>
<dt>May approve</dt><dd id="approvers">${v.approvers.map(who).join(', ')}</dd>
<dt>Decide before</dt><dd id="expires">${utc(v.expiresAt)}</dd>
<dt>Signed in as</dt><dd id="signed-in">${who(o.signedIn)}</dd></dl>
${cardHtml(v.card)}
${buttons}`,
    o.formToken !== undefined,
  );
}
