// The campaign board, shared by the board View and the job viewer (html.ts inlines this file where a View has the
// CAMPAIGN_BOARD marker): get_job and wait_for_jobs open the job viewer, so a `campaign:` handle there shows this
// same board. One card per campaign item (player, varied fields, cost, status), filters, and pick checkboxes. It
// reads the campaign read model (details.campaign of a campaign envelope, src/jobs/campaign-view.ts) and refreshes
// itself by calling get_job on the campaign handle while items run, bounded so a View left open cannot poll
// forever. A campaign quote shows as the consent card (consent-card.js), and once confirmed the board follows the
// new campaign. "Upscale N picked" is the next paid step: one create_campaign of upscale_video items for the
// picked videos, quoted and consented once like any paid call (the same card). Every string from the platform
// goes into text nodes or attributes, never HTML.
globalThis.GenplatBoard = {
  /** The campaign view in a result (get_job, wait_for_jobs); an admitted envelope's details name only the id. */
  campaignOf(result) {
    const sc = result?.structuredContent;
    const all = [sc?.details?.campaign, ...(sc?.jobs ?? []).map((j) => j.details?.campaign)];
    return all.find((c) => c && typeof c === 'object' && Array.isArray(c.items));
  },

  /** Whether a result is the board's: a campaign view, a campaign quote, or an admitted campaign. */
  owns(result) {
    const sc = result?.structuredContent;
    return Boolean(
      this.campaignOf(result) ||
        (sc?.status === 'confirmation_required' && result?._meta?.['genplat/confirm']?.tool === 'create_campaign') ||
        (typeof sc?.handle === 'string' && sc.handle.startsWith('campaign:')),
    );
  },

  /**
   * @param {object} o
   * @param {object} o.app the View's connected ext-apps App
   * @param {Element} o.root where the board renders (it replaces the children)
   */
  create({ app, root }) {
    if (!document.getElementById('campaign-board-style')) {
      const style = document.createElement('style');
      style.id = 'campaign-board-style';
      style.textContent = `
        .gp-board .bar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin-bottom: 10px; }
        .gp-board .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 10px; }
        .gp-board .item { border: 1px solid var(--border); border-radius: 10px; padding: 8px; background: var(--card); }
        .gp-board .item.picked { outline: 2px solid var(--accent); }
        .gp-board .muted { color: var(--muted); font-size: 12px; }
        .gp-board .status.failed, .gp-board .status.unknown { color: var(--bad); }
        .gp-board video, .gp-board img { width: 100%; border-radius: 8px; display: block; background: #000; }
        .gp-board .varied { font-size: 12px; margin: 4px 0; overflow-wrap: anywhere; }
        .gp-board button { font: inherit; border-radius: 8px; border: 1px solid var(--accent); padding: 6px 14px; background: var(--accent); color: #fff; cursor: pointer; }
        .gp-board button:disabled { opacity: .55; cursor: default; }
        .gp-board .panel { border: 1px dashed var(--border); border-radius: 10px; padding: 8px; margin-bottom: 10px; }
        .gp-board .panel input, .gp-board .panel select { font: inherit; }
        .gp-board .error { color: var(--bad); }`;
      document.head.append(style);
    }
    root.classList.add('gp-board');
    const POLL_MS = 7000;
    const MAX_POLLS = 120; // ~14 minutes; then a Refresh button, never an endless loop.
    const FINAL = new Set(['completed', 'failed', 'released', 'unknown']);
    let view;
    let polls = 0;
    let timer;
    const filters = {};
    const picked = new Set();
    /** The upscale step: its model fields, what it started, its last refusal. */
    const up = { family: 'precision', model: '', resolution: '1080p', started: [], error: '' };
    const consent = globalThis.GenplatConsent.create({
      app,
      el: (...a) => el(...a),
      onChange: render,
      onStarted: (started) => startedCampaign(started.handle),
    });

    const el = (tag, attrs = {}, ...kids) => {
      const n = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) {
        if (k === 'class') n.className = v;
        else if (k.startsWith('on')) n.addEventListener(k.slice(2), v);
        else if (k === 'checked') n.checked = v;
        else if (v !== undefined && v !== false) n.setAttribute(k, v === true ? '' : v);
      }
      for (const kid of kids) if (kid !== undefined && kid !== null) n.append(kid);
      return n;
    };
    const credits = (n) => `${Number(n).toLocaleString('en-US')} credits`;
    const show = (v) => (typeof v === 'string' ? v : JSON.stringify(v));

    /** The campaign view in a result (get_job, wait_for_jobs); an admitted envelope's details name only the id. */
    function campaignOf(result) {
      const sc = result?.structuredContent;
      const all = [sc?.details?.campaign, ...(sc?.jobs ?? []).map((j) => j.details?.campaign)];
      return all.find((c) => c && typeof c === 'object' && Array.isArray(c.items));
    }

    function accept(result) {
      const sc = result?.structuredContent;
      const next = campaignOf(result);
      if (next) view = next;
      else if (sc?.status === 'confirmation_required') consent.offer(sc, result._meta?.['genplat/confirm']);
      else if (typeof sc?.handle === 'string' && sc.handle.startsWith('campaign:')) return follow(sc.handle);
      render();
      schedule();
    }

    /** Shows `handle`'s campaign (read once with get_job), then keeps it live like any other. */
    async function follow(handle) {
      view = { handle, items: [], progress: 'starting…', quote_total: 0, charged_total: 0 };
      polls = 0;
      await refresh();
    }

    /** A campaign the board's consent started: the board's own (opened from a quote) is followed; an upscale is listed. */
    function startedCampaign(handle) {
      if (!handle) return;
      if (!view) return void follow(handle);
      up.started.push(handle);
      render();
    }

    /** Filter keys: status plus every varied field; values as shown. */
    function facets() {
      const keys = new Map([['status', new Set()]]);
      for (const i of view.items) {
        keys.get('status').add(i.status);
        for (const [k, v] of Object.entries(i.varied)) {
          if (!keys.has(k)) keys.set(k, new Set());
          keys.get(k).add(show(v));
        }
      }
      return keys;
    }

    const facetValue = (item, key) => (key === 'status' ? item.status : show(item.varied[key]));
    const visible = (item) => Object.entries(filters).every(([k, v]) => !v || facetValue(item, k) === v);

    function player(o) {
      if (o.media === 'video') return el('video', { src: o.url, controls: true, playsinline: true, preload: 'auto' });
      if (o.media === 'audio') return el('audio', { src: o.url, controls: true, preload: 'auto' });
      return el('img', { src: o.url, alt: o.media });
    }

    function card(i) {
      const money =
        `quote ${credits(i.quote)}${i.bounded ? '' : ' (unbounded)'}` +
        (i.charged !== undefined ? ` · charged ${credits(i.charged - (i.refunded ?? 0))}` : '');
      const pick = el('input', {
        type: 'checkbox',
        class: 'pick',
        checked: picked.has(i.handle),
        disabled: i.status !== 'completed',
        'aria-label': `pick item ${i.index}`,
        onchange: (e) => {
          e.target.checked ? picked.add(i.handle) : picked.delete(i.handle);
          render();
        },
      });
      return el(
        'section',
        { class: `item${picked.has(i.handle) ? ' picked' : ''}`, 'data-handle': i.handle, 'data-status': i.status },
        el(
          'div',
          { class: 'bar' },
          pick,
          el('strong', {}, `#${i.index}`),
          el('span', { class: `status ${i.status}` }, i.status),
        ),
        ...i.outputs.map(player),
        el(
          'div',
          { class: 'varied' },
          ...Object.entries(i.varied).map(([k, v]) => el('div', { 'data-field': k }, `${k}: ${show(v)}`)),
        ),
        el('div', { class: 'muted' }, money),
        i.reason ? el('div', { class: 'muted' }, i.reason) : undefined,
      );
    }

    const pickedItems = () => view.items.filter((i) => picked.has(i.handle));

    /** The next paid step for the picked videos: one campaign of upscale_video items, quoted first. */
    async function upscalePicked() {
      const items = pickedItems().map((i) => ({
        tool: 'upscale_video',
        arguments: { ...i.upscale, model_family: up.family, model: up.model.trim(), target_resolution: up.resolution },
      }));
      up.error = '';
      const upscale = root.querySelector('#upscale');
      if (upscale) upscale.disabled = true;
      try {
        const r = await app.callServerTool({ name: 'create_campaign', arguments: { items } });
        const sc = r?.structuredContent;
        if (r.isError || !sc) up.error = (r.content ?? []).map((c) => c.text ?? '').join(' ') || 'Refused.';
        else if (sc.status === 'confirmation_required') consent.offer(sc, r._meta?.['genplat/confirm']);
        // The operator's policy may start it without asking (GENPLAT_CONFIRM): then it is running already.
        else startedCampaign(sc.handle);
      } catch (e) {
        up.error = String(e?.message ?? e);
      }
      render();
    }

    /** The upscale panel: model fields and the button; says which picks cannot be upscaled from here. */
    function upscalePanel() {
      const chosen = pickedItems();
      const missing = chosen.filter((i) => !i.upscale);
      const ready = chosen.length > 0 && missing.length === 0 && up.model.trim() !== '';
      const opt = (vals, cur) =>
        vals.map((v) => {
          const o = el('option', { value: v }, v);
          o.selected = v === cur;
          return o;
        });
      return el(
        'div',
        { class: 'panel', id: 'upscale-panel' },
        el(
          'div',
          { class: 'bar' },
          el(
            'select',
            {
              id: 'up-family',
              'aria-label': 'model family',
              onchange: (e) => {
                up.family = e.target.value;
              },
            },
            ...opt(['precision', 'generative', 'creative'], up.family),
          ),
          el('input', {
            id: 'up-model',
            'aria-label': 'model name',
            placeholder: 'model name',
            value: up.model,
            oninput: (e) => {
              up.model = e.target.value;
              root.querySelector('#upscale').disabled = !(chosen.length && !missing.length && up.model.trim());
            },
          }),
          el(
            'select',
            {
              id: 'up-res',
              'aria-label': 'target resolution',
              onchange: (e) => {
                up.resolution = e.target.value;
              },
            },
            ...opt(['720p', '1080p', '1440p', '2160p'], up.resolution),
          ),
          el('button', { id: 'upscale', disabled: !ready, onclick: upscalePicked }, `Upscale ${chosen.length} picked`),
        ),
        missing.length
          ? el(
              'div',
              { class: 'muted' },
              `#${missing.map((i) => i.index).join(', #')}: the platform gave no project id for ${missing.length > 1 ? 'these videos' : 'this video'}; upscale from the chat with its project_id`,
            )
          : undefined,
        up.error ? el('div', { class: 'error', id: 'upscale-error' }, up.error) : undefined,
        ...up.started.map((h) =>
          el('div', { class: 'muted', 'data-started': h }, `Upscaling: ${h} (follow it with get_job)`),
        ),
      );
    }

    async function tellPicked() {
      // The next paid step stays in the conversation: the message names the picked handles; any paid call the
      // model makes from it is quoted and consented like every other (one consent per call, see AGENTS.md weak spots).
      const handles = view.items.filter((i) => picked.has(i.handle)).map((i) => i.handle);
      const text = `From campaign ${view.handle} I picked ${handles.length}: ${handles.join(', ')}. Next: upscale these videos.`;
      await app.sendMessage({ role: 'user', content: [{ type: 'text', text }] }).catch(() => {});
    }

    function render() {
      const quote = consent.node();
      if (!view) return quote ? root.replaceChildren(quote) : undefined;
      const keys = facets();
      const bar = el(
        'div',
        { class: 'bar' },
        el('strong', {}, view.progress),
        el('span', { class: 'muted' }, `quoted ${credits(view.quote_total)} · charged ${credits(view.charged_total)}`),
        ...[...keys].map(([k, vals]) =>
          el(
            'select',
            {
              id: `filter-${k}`,
              'aria-label': `filter ${k}`,
              onchange: (e) => {
                filters[k] = e.target.value;
                render();
              },
            },
            el('option', { value: '' }, `${k}: all`),
            ...[...vals].map((v) => {
              const o = el('option', { value: v }, v);
              o.selected = filters[k] === v;
              return o;
            }),
          ),
        ),
        el('button', { id: 'tell', disabled: picked.size === 0, onclick: tellPicked }, `Use ${picked.size} picked`),
        polls >= MAX_POLLS
          ? el(
              'button',
              {
                id: 'refresh',
                onclick: () => {
                  polls = 0;
                  refresh();
                },
              },
              'Refresh',
            )
          : undefined,
      );
      // Completed players keep playing across refreshes: reuse their cards when nothing about them changed.
      const old = new Map([...root.querySelectorAll('section.item')].map((n) => [n.dataset.handle, n]));
      const cards = view.items.filter(visible).map((i) => {
        const prev = old.get(i.handle);
        return prev &&
          prev.dataset.status === 'completed' &&
          i.status === 'completed' &&
          prev.classList.contains('picked') === picked.has(i.handle)
          ? prev
          : card(i);
      });
      root.replaceChildren(
        ...[quote, bar, picked.size ? upscalePanel() : undefined, el('div', { class: 'grid' }, ...cards)].filter(
          Boolean,
        ),
      );
    }

    function schedule() {
      clearTimeout(timer);
      if (view?.items.some((i) => !FINAL.has(i.status)) && polls < MAX_POLLS) timer = setTimeout(refresh, POLL_MS);
    }

    async function refresh() {
      polls++;
      try {
        const r = await app.callServerTool({ name: 'get_job', arguments: { handle: view.handle } });
        const next = campaignOf(r);
        if (next) view = next;
      } catch {
        // The next round tries again; the host may be briefly unavailable.
      }
      render();
      schedule();
    }

    return {
      accept(result) {
        try {
          accept(result);
        } catch (e) {
          console.error(`board: ${e?.stack ?? e}`);
        }
      },
    };
  },
};
