// The consent card, shared by the job viewer and the campaign board (html.ts inlines this file where a View has
// the CONSENT_CARD marker). A `confirmation_required` quote becomes a card that shows the price, whether it is
// proven, and every field that will be POSTed (the server's card from `_meta['genplat/confirm']`, the same lines
// as the confirmation form); its Confirm calls the app-only `confirm_paid_call` with the quoted tool, the exact
// quoted arguments and the token. One click, one call: the button is disabled before the call goes out, and the
// token is single use on the server anyway.
// Approval mode (issue 28, carrier a): a result's `_meta['genplat/approval']` (src/approvals/app-meta.ts) shows the
// call awaiting approval; to a viewer who may decide it offers Approve / Decline, which call `decide_approval`
// with this View's nonce. The server decides who the viewer is (the signed-in caller), never this card.
globalThis.GenplatConsent = {
  /**
   * @param {object} o
   * @param {object} o.app the View's connected ext-apps App
   * @param {Function} o.el the View's element helper el(tag, attrs, ...kids)
   * @param {Function} o.onChange called whenever the card changes (the View re-renders)
   * @param {Function} o.onStarted called with (envelope, result) once the confirmed call started
   */
  create({ app, el, onChange, onStarted }) {
    const credits = (n) => `${Number(n).toLocaleString('en-US')} credits`;
    const viewNonce = document.querySelector('meta[name="genplat-view-nonce"]')?.getAttribute('content') ?? '';
    const FOLD_AT = 120;
    let quote;
    let approval;

    if (!document.getElementById('consent-card-style')) {
      const style = document.createElement('style');
      style.id = 'consent-card-style';
      style.textContent = `
        #consent { border: 1px solid var(--border); border-radius: 10px; padding: 12px; margin-bottom: 12px; background: var(--card); }
        #consent .head { display: flex; justify-content: space-between; gap: 8px; align-items: baseline; flex-wrap: wrap; }
        #consent .handle { font-family: ui-monospace, monospace; font-size: 12px; color: var(--muted); word-break: break-all; }
        #consent .price { font-size: 22px; font-weight: 700; margin: 6px 0; }
        #consent .money { color: var(--muted); font-size: 13px; margin-top: 4px; }
        #consent .note { color: var(--warn, #b8860b); font-size: 13px; }
        #consent .error { color: var(--bad); }
        #consent .row { display: flex; gap: 8px; align-items: center; margin-top: 8px; flex-wrap: wrap; }
        #consent .fields { margin: 8px 0 0; padding: 0; list-style: none; font-size: 13px; }
        #consent .fields li { margin: 2px 0; }
        #consent .fields .name { font-family: ui-monospace, monospace; color: var(--muted); }
        #consent .fields .value, #consent .fields details div { white-space: pre-wrap; overflow-wrap: anywhere; }
        #consent .fields summary { cursor: pointer; }`;
      document.head.append(style);
    }

    // Every field, never cut: a long one shows its start and how much more there is, and opens to the full text.
    function fieldList(fields) {
      return el(
        'ul',
        { class: 'fields', id: 'fields' },
        ...fields.map((f) => {
          const name = el('span', { class: 'name' }, `${f.name}: `);
          if (!f.long) return el('li', { 'data-field': f.name }, name, el('span', { class: 'value' }, f.value));
          const more = Math.max(0, f.value.length - FOLD_AT);
          const head = more
            ? `${f.value.slice(0, FOLD_AT)}… (${more.toLocaleString('en-US')} more characters, show all)`
            : f.value;
          return el(
            'li',
            { 'data-field': f.name },
            el('details', {}, el('summary', {}, name, head), el('div', { class: 'full' }, f.value)),
          );
        }),
      );
    }

    async function confirm() {
      // The answer belongs to the quote that was confirmed (`q`), even if another card was offered meanwhile.
      const q = quote;
      if (q?.state !== 'ready' || !q.env.confirmation_token) return;
      q.state = 'sending';
      onChange();
      try {
        const r = await app.callServerTool({
          name: 'confirm_paid_call',
          arguments: {
            tool: q.call.tool,
            arguments: q.call.arguments,
            confirmation_token: q.env.confirmation_token,
            // The server's proof that this click comes from the View it served (src/apps/view-nonce.ts).
            ...(viewNonce ? { view_nonce: viewNonce } : {}),
          },
        });
        const sc = r?.structuredContent;
        const started = Array.isArray(sc?.jobs) ? sc.jobs[0] : sc?.status ? sc : undefined;
        if (r.isError || !started) {
          q.state = 'failed';
          q.error = (r.content ?? []).map((c) => c.text ?? '').join(' ') || 'Not started.';
        } else if (started.status === 'confirmation_required') {
          if (quote === q) quote = { env: started, call: r._meta?.['genplat/confirm'] ?? q.call, state: 'ready' };
        } else {
          q.state = 'done';
          app
            .updateModelContext?.({
              content: [
                { type: 'text', text: `The user confirmed ${q.call.tool}; ${started.handle} is ${started.status}.` },
              ],
            })
            .catch(() => {});
          onStarted(started, r);
        }
      } catch (e) {
        q.state = 'failed';
        q.error = String(e?.message ?? e);
      }
      onChange();
    }

    async function decide(decision) {
      const a = approval;
      if (a?.sending || !a?.info.may_decide) return;
      a.sending = true;
      onChange();
      try {
        const r = await app.callServerTool({
          name: 'decide_approval',
          arguments: { approval: a.info.approval, decision, ...(viewNonce ? { view_nonce: viewNonce } : {}) },
        });
        const next = r?._meta?.['genplat/approval'];
        if (r.isError || !next) a.error = (r.content ?? []).map((c) => c.text ?? '').join(' ') || 'Not recorded.';
        else if (approval === a) approval = { info: next };
      } catch (e) {
        a.error = String(e?.message ?? e);
      }
      a.sending = false;
      onChange();
    }

    function approvalNode() {
      const { info, sending, error } = approval;
      const card = info.card;
      const who = info.requester.name ? `${info.requester.name} (${info.requester.id})` : info.requester.id;
      const open = info.state === 'pending' && info.may_decide;
      return el(
        'section',
        { class: 'card', id: 'consent', 'data-approval-state': info.state },
        el(
          'div',
          { class: 'head' },
          el('strong', {}, 'Approve a paid call'),
          el('span', { class: 'handle' }, info.approval),
        ),
        el('div', { class: 'money', id: 'requester' }, `Asked by ${who}`),
        card ? el('div', { class: 'price' }, card.price) : undefined,
        card ? el('div', { id: 'summary' }, card.summary) : undefined,
        card ? fieldList(card.fields) : undefined,
        info.message ? el('div', { class: 'note', id: 'approval-message' }, info.message) : undefined,
        error ? el('div', { class: 'error' }, error) : undefined,
        el(
          'div',
          { class: 'row' },
          open
            ? el(
                'button',
                { class: 'primary', id: 'approve', disabled: sending, onclick: () => decide('approve') },
                'Approve',
              )
            : undefined,
          open
            ? el('button', { id: 'decline', disabled: sending, onclick: () => decide('decline') }, 'Decline')
            : undefined,
          el(
            'span',
            { class: 'money', id: 'approval-state' },
            info.state === 'pending' ? `until ${new Date(info.expires_at).toLocaleString()}` : info.state,
          ),
        ),
      );
    }

    return {
      /** An approval to show: a result's `_meta['genplat/approval']` (src/approvals/app-meta.ts). */
      offerApproval(info) {
        approval = { info };
      },
      /** A quote to show: the confirmation_required envelope and its result's `_meta['genplat/confirm']`. */
      offer(env, call) {
        quote = { env, call, state: 'ready' };
      },
      clear() {
        quote = undefined;
      },
      /** The card, or undefined when nothing is quoted. */
      node() {
        if (approval) return approvalNode();
        if (!quote) return undefined;
        const { env, call, state, error } = quote;
        const est = env.estimate ?? { credits: 0, bounded: true, basis: '' };
        const button = el(
          'button',
          // No token: a credential that may quote but not spend (its reason says so): nothing to confirm here.
          {
            class: 'primary',
            id: 'confirm',
            disabled: state !== 'ready' || !call || !env.confirmation_token,
            onclick: confirm,
          },
          state === 'sending' ? 'Starting…' : state === 'done' ? 'Started' : 'Confirm',
        );
        const card = call?.card;
        return el(
          'section',
          { class: 'card', id: 'consent' },
          el(
            'div',
            { class: 'head' },
            el('strong', {}, 'Confirm a paid job'),
            el('span', { class: 'handle' }, call?.tool ?? env.kind ?? ''),
          ),
          el(
            'div',
            { class: 'price' },
            est.bounded === false ? `up to ${credits(est.credits)}` : `at most ${credits(est.credits)}`,
          ),
          el(
            'div',
            { class: card?.bounded === false || est.bounded === false ? 'note' : 'money', id: 'bound' },
            card
              ? card.price
              : est.bounded === false
                ? 'not published: the real charge is known only after it starts'
                : 'proven from published prices',
          ),
          el('div', { class: 'money' }, `${est.api_units ?? est.credits / 100} API units · ${est.basis}`),
          env.reason ? el('div', { class: 'note' }, env.reason) : undefined,
          card ? el('div', { id: 'summary' }, card.summary) : undefined,
          card
            ? fieldList(card.fields)
            : el('div', { class: 'note' }, 'This host did not pass the quoted call; confirm in the chat.'),
          error ? el('div', { class: 'error' }, error) : undefined,
          el(
            'div',
            { class: 'row' },
            button,
            el(
              'span',
              { class: 'money' },
              env.expires_at ? `valid until ${new Date(env.expires_at).toLocaleTimeString()}` : '',
            ),
          ),
        );
      },
    };
  },
};
