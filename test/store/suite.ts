/**
 * The store suite: every rule of `Store`, run unchanged against each backend (sqlite.test.ts,
 * postgres.test.ts). `backend.create()` gives a fresh, empty store location each time.
 */
import { describe, expect, it } from 'vitest';
import { countedCredits } from '../../src/jobs/reconcile.js';
import type { JobPatch, NewJobRecord } from '../../src/jobs/store.js';
import { evaluateAdmission, evaluateBundleOfOne, evaluateCampaignAdmission } from '../../src/paid/admission.js';
import { type BlobStore, CHUNK_BYTES, readBlob, TooLargeError, writeChunks } from '../../src/store/blobs.js';
import { type AdmitRules, type BundleItem, SCHEMA_VERSION, type Store } from '../../src/store/types.js';

export interface Location {
  open(options?: { now?: () => Date }): Promise<Store>;
  /** Writes a schema version directly, as a newer genplat-mcp would have. */
  setSchemaVersion(version: number): Promise<void>;
  /** Runs raw SQL on the store's database, as an operator (or an attacker with its credentials) could. */
  exec(sql: string): Promise<void>;
  /** The audit trail's table name in this backend. */
  auditTable: string;
  /** The job records' table name in this backend. */
  jobsTable: string;
}
export interface Backend {
  create(): Promise<Location>;
}

const DAY = new Date('2026-03-10T00:00:00.000Z');
const at = (iso: string) => () => new Date(iso);

export function intent(over: Partial<NewJobRecord> = {}, credits = 100): NewJobRecord {
  return {
    tool: 'create_actor_video',
    kind: 'actor_video',
    fingerprint: 'fp-1',
    summary: 'a test job',
    estimate: { credits, api_units: credits / 100, basis: 'test', bounded: true },
    consent: 'policy',
    owner: undefined,
    ...over,
  };
}

export function rules(over: Partial<AdmitRules> = {}): AdmitRules {
  return { maxCreditsPerCall: 1000, maxCreditsPerDay: 10_000, dayStart: DAY, ...over };
}

async function admitted(store: Store, i: NewJobRecord, r: AdmitRules = rules()) {
  const res = await store.admit(i, r, evaluateAdmission);
  if (!res.admitted) throw new Error(`expected admission, got ${res.reason}`);
  return res.record;
}

export function storeSuite(name: string, backend: Backend): void {
  describe(`${name} store`, () => {
    async function fresh(now = at('2026-03-10T12:00:00.000Z')): Promise<Store> {
      return (await backend.create()).open({ now });
    }

    it('campaign: all items admitted queued in one transaction or none; each claimed once; queued items hold spend', async () => {
      const s = await fresh();
      const item = (i: number, credits = 100): BundleItem => ({
        ...intent(
          {
            fingerprint: `item-${i}`,
            campaign: {
              id: 'c1',
              fingerprint: 'campaign-fp',
              index: i,
              total: 3,
              input: {},
              request: { route: '/video/generate', body: { i } },
              varied: { i },
              sendBy: '2026-03-10T13:00:00.000Z',
            },
          },
          credits,
        ),
        outcome: 'queued',
      });
      const items = [item(0), item(1), item(2)];
      // Over the day: nothing written.
      const over = await s.admitBundle(items, rules({ maxCreditsPerDay: 250 }), evaluateCampaignAdmission);
      expect(over).toMatchObject({ admitted: false, reason: 'per_day', credits: 300, spent: 0 });
      // One item over the per-call ceiling: named, nothing written.
      const perCall = await s.admitBundle(
        [item(0), item(1, 600), item(2)],
        rules({ maxCreditsPerCall: 500 }),
        evaluateCampaignAdmission,
      );
      expect(perCall).toMatchObject({ admitted: false, reason: 'per_call', item: 1 });
      expect(await s.list()).toEqual([]);

      const ok = await s.admitBundle(
        items,
        rules({ duplicate: { fingerprint: 'campaign-fp', owner: undefined } }),
        evaluateCampaignAdmission,
      );
      if (!ok.admitted) throw new Error(ok.reason);
      expect(ok.records.map((r) => r.outcome)).toEqual(['queued', 'queued', 'queued']);
      expect(await s.spendSince(DAY)).toBe(300);
      expect(await s.queuedBundles()).toEqual(['c1']);
      // The same campaign again while active: its duplicate.
      const again = await s.admitBundle(
        items,
        rules({ duplicate: { fingerprint: 'campaign-fp', owner: undefined } }),
        evaluateCampaignAdmission,
      );
      expect(again).toMatchObject({ admitted: false, reason: 'duplicate' });

      // Compare-and-set: two claims of one item, one wins; a release returns the reservation.
      const id0 = ok.records[0]!.id;
      const claims = await Promise.all([
        s.claimItem(id0, { outcome: 'pending' }),
        s.claimItem(id0, { outcome: 'pending' }),
      ]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      const released = await s.claimItem(ok.records[2]!.id, {
        outcome: 'rejected',
        status: 'failed',
        reason: 'released',
      });
      expect(released?.outcome).toBe('rejected');
      expect(await s.claimItem(ok.records[2]!.id, { outcome: 'pending' })).toBeUndefined();
      expect(await s.spendSince(DAY)).toBe(200);
      expect((await s.bundleItems('c1')).map((r) => r.outcome)).toEqual(['pending', 'queued', 'rejected']);
      await s.close();
    });

    it('campaign: an item whose exclusive key is held (an upscale attempt for its video) refuses the whole campaign, naming the item', async () => {
      const s = await fresh();
      const key = (v: string) => ({ key: `upscale:${v}`, staleBefore: new Date('2026-03-09T12:00:00.000Z') });
      const item = (i: number, video: string): BundleItem => ({
        ...intent({
          tool: 'upscale_video',
          kind: 'upscale',
          fingerprint: `up-${i}`,
          exclusiveKey: `upscale:${video}`,
          campaign: {
            id: `c-${video}-${i}`,
            fingerprint: `camp-${video}-${i}`,
            index: i,
            total: 2,
            input: {},
            request: { route: '/upscale/generate', body: { video } },
            varied: {},
            sendBy: '2026-03-10T13:00:00.000Z',
          },
        }),
        outcome: 'queued',
      });
      // A single upscale of video B is active.
      await admitted(
        s,
        intent({ tool: 'upscale_video', kind: 'upscale', fingerprint: 'single-b', exclusiveKey: 'upscale:B' }),
      );
      const refused = await s.admitBundle(
        [item(0, 'A'), item(1, 'B')],
        rules({ itemExclusive: [key('A'), key('B')] }),
        evaluateCampaignAdmission,
      );
      expect(refused).toMatchObject({ admitted: false, reason: 'exclusive', item: 1 });
      expect((await s.list()).map((r) => r.fingerprint)).toEqual(['single-b']);
      // Video A alone is admitted, queued: it now holds A's key against a single call and another campaign.
      const ok = await s.admitBundle([item(0, 'A')], rules({ itemExclusive: [key('A')] }), evaluateCampaignAdmission);
      expect(ok.admitted).toBe(true);
      const single = await s.admit(
        intent({ tool: 'upscale_video', kind: 'upscale', fingerprint: 'single-a', exclusiveKey: 'upscale:A' }),
        rules({ exclusive: key('A') }),
        evaluateAdmission,
      );
      expect(single).toMatchObject({ admitted: false, reason: 'exclusive' });
      const other = await s.admitBundle(
        [{ ...item(0, 'A'), fingerprint: 'up-other' }],
        rules({ itemExclusive: [key('A')] }),
        evaluateCampaignAdmission,
      );
      expect(other).toMatchObject({ admitted: false, reason: 'exclusive', item: 0 });
      await s.close();
    });

    it('creates its schema on an empty database, and reopens it unchanged', async () => {
      const loc = await backend.create();
      const a = await loc.open();
      expect(await a.schemaVersion()).toBe(SCHEMA_VERSION);
      const rec = await admitted(a, intent());
      await a.close();
      const b = await loc.open();
      expect(await b.schemaVersion()).toBe(SCHEMA_VERSION);
      expect((await b.get(rec.id))?.fingerprint).toBe('fp-1');
      await b.close();
    });

    it('refuses a database written by a newer schema, with a clear message', async () => {
      const loc = await backend.create();
      await (await loc.open()).close();
      await loc.setSchemaVersion(SCHEMA_VERSION + 1);
      await expect(loc.open()).rejects.toThrow(
        new RegExp(`newer genplat-mcp \\(schema ${SCHEMA_VERSION + 1}, this one knows ${SCHEMA_VERSION}\\); upgrade`),
      );
    });

    it('admits an intent as pending, readable by id, by submission handle and in the list', async () => {
      const s = await fresh();
      const rec = await admitted(s, intent());
      expect(rec).toMatchObject({
        outcome: 'pending',
        status: 'submitted',
        fingerprint: 'fp-1',
        createdAt: '2026-03-10T12:00:00.000Z',
      });
      expect(await s.get(rec.id)).toEqual(rec);
      expect(await s.get(rec.handle)).toEqual(rec);
      expect(await s.list()).toEqual([rec]);
      await s.close();
    });

    it('refuses above the per-call ceiling and writes nothing', async () => {
      const s = await fresh();
      const res = await s.admit(intent({}, 501), rules({ maxCreditsPerCall: 500 }), evaluateAdmission);
      expect(res).toEqual({ admitted: false, reason: 'per_call', limit: 500, credits: 501 });
      expect(await admitted(s, intent({}, 500), rules({ maxCreditsPerCall: 500 }))).toBeDefined();
      expect(await s.list()).toHaveLength(1);
      await s.close();
    });

    it('refuses above the per-day ceiling counting every owner since the day start, and allows exactly the ceiling', async () => {
      const loc = await backend.create();
      const yesterday = await loc.open({ now: at('2026-03-09T23:59:59.000Z') });
      await admitted(yesterday, intent({ fingerprint: 'old' }, 900));
      await yesterday.close();
      const s = await loc.open({ now: at('2026-03-10T08:00:00.000Z') });
      const day = rules({ maxCreditsPerDay: 300 });
      await admitted(s, intent({ fingerprint: 'a', owner: 'alice' }), day);
      await admitted(s, intent({ fingerprint: 'b', owner: 'bob' }), day);
      const over = await s.admit(intent({ fingerprint: 'c', owner: 'carol' }, 101), day, evaluateAdmission);
      expect(over).toEqual({ admitted: false, reason: 'per_day', limit: 300, credits: 101, spent: 200 });
      await admitted(s, intent({ fingerprint: 'c', owner: 'carol' }, 100), day);
      expect(await s.spendSince(DAY)).toBe(300);
      expect(await s.spendSince(DAY, 'alice')).toBe(100);
      await s.close();
    });

    it('refuses an active duplicate (same fingerprint and owner) with that record; allows it once final or allowed', async () => {
      const s = await fresh();
      const dup = (owner?: string) => rules({ duplicate: { fingerprint: 'fp-1', owner } });
      const first = await admitted(s, intent({ owner: 'alice' }), dup('alice'));
      const again = await s.admit(intent({ owner: 'alice' }), dup('alice'), evaluateAdmission);
      expect(again).toMatchObject({ admitted: false, reason: 'duplicate', record: { id: first.id } });
      // another owner's job is not a duplicate; stdio (owner undefined) matches every owner
      const bobs = await admitted(s, intent({ owner: 'bob' }), dup('bob'));
      expect(await s.admit(intent(), dup(undefined), evaluateAdmission)).toMatchObject({
        reason: 'duplicate',
        record: { id: bobs.id },
      });
      // allow_duplicate: no rule
      await admitted(s, intent({ owner: 'alice' }), rules());
      // unknown outcome stays active; a job still processing too; completed and rejected do not
      const carol = await admitted(s, intent({ owner: 'carol' }), dup('carol'));
      await s.settle(carol.id, { outcome: 'unknown', reason: 'timeout' });
      expect(await s.admit(intent({ owner: 'carol' }), dup('carol'), evaluateAdmission)).toMatchObject({
        reason: 'duplicate',
      });
      await s.settle(carol.id, { outcome: 'submitted', status: 'processing', handle: 'actor_video:v1' });
      expect(await s.admit(intent({ owner: 'carol' }), dup('carol'), evaluateAdmission)).toMatchObject({
        reason: 'duplicate',
      });
      await s.observe(carol.id, { status: 'completed' });
      await admitted(s, intent({ owner: 'carol' }), dup('carol'));
      const dan = await admitted(s, intent({ owner: 'dan' }), dup('dan'));
      await s.settle(dan.id, { outcome: 'rejected', status: 'failed', reason: '400' });
      await admitted(s, intent({ owner: 'dan' }), dup('dan'));
      await s.close();
    });

    it('consumes a confirmation nonce once; a refused call does not use it up', async () => {
      const s = await fresh();
      const nonce = { value: 'nonce-1', expiresAt: new Date('2026-03-10T12:10:00.000Z') };
      const refused = await s.admit(intent({}, 2000), rules({ nonce, maxCreditsPerDay: 100 }), evaluateAdmission);
      expect(refused).toMatchObject({ admitted: false, reason: 'per_call' });
      const dayRefused = await s.admit(intent(), rules({ nonce, maxCreditsPerDay: 50 }), evaluateAdmission);
      expect(dayRefused).toMatchObject({ admitted: false, reason: 'per_day' });
      await admitted(s, intent(), rules({ nonce }));
      expect(await s.admit(intent({ fingerprint: 'other' }), rules({ nonce }), evaluateAdmission)).toEqual({
        admitted: false,
        reason: 'token_used',
      });
      expect(await s.list()).toHaveLength(1);
      await s.close();
    });

    it('settles and observes: handle, remote ids, outputs, charges; immutable fields stay; unknown ids throw', async () => {
      const s = await fresh();
      const rec = await admitted(s, intent({ owner: 'alice' }));
      const settled = await s.settle(rec.id, {
        outcome: 'submitted',
        handle: 'actor_video:v42',
        status: 'processing',
        requestId: 'req-1',
        remote: { video_id: 'v42' },
      });
      expect(settled).toMatchObject({ outcome: 'submitted', handle: 'actor_video:v42', requestId: 'req-1' });
      const sneaky = {
        status: 'completed',
        outputs: [{ url: 'https://cdn.example/v.mp4', media: 'video' }],
        creditsCharged: 90,
        owner: 'mallory',
      } as JobPatch;
      const seen = await s.observe(rec.id, sneaky);
      expect(seen).toMatchObject({ status: 'completed', creditsCharged: 90, owner: 'alice', createdAt: rec.createdAt });
      expect(await s.get('actor_video:v42')).toEqual(seen);
      expect(await s.get(rec.handle)).toEqual(seen); // the submission:<id> handle still works
      await expect(s.settle('no-such-id', { outcome: 'rejected' })).rejects.toThrow(/no record/);
      await expect(s.observe('no-such-id', { status: 'failed' })).rejects.toThrow(/no record/);
      expect(await s.get('nothing:here')).toBeUndefined();
      await s.close();
    });

    it('a used nonce outlives its token, and an expired token is refused inside admit (clock skew, pruning)', async () => {
      const loc = await backend.create();
      const t0 = Date.parse('2026-03-10T12:00:00.000Z');
      let admitterClock = new Date(t0);
      let prunerClock = new Date(t0 + 40 * 60_000); // an instance whose clock runs 40 min ahead
      const admitter = await loc.open({ now: () => admitterClock });
      const pruner = await loc.open({ now: () => prunerClock });
      const nonce = { value: 'skewed', expiresAt: new Date(t0 + 10 * 60_000) };
      await admitted(admitter, intent({ fingerprint: 'first' }), rules({ nonce }));
      // The pruner's first admit prunes: a nonce expired on ITS clock must survive (grace), or the slower
      // instance could insert it again and send a second paid POST on one consent.
      await admitted(pruner, intent({ fingerprint: 'pruner-1' }));
      admitterClock = new Date(t0 + 5 * 60_000);
      expect(await admitter.admit(intent({ fingerprint: 'second' }), rules({ nonce }), evaluateAdmission)).toEqual({
        admitted: false,
        reason: 'token_used',
      });
      // Past the grace the row may be gone, but the token is then expired on every sane clock: refused in admit.
      prunerClock = new Date(t0 + 3 * 60 * 60_000);
      const late = await loc.open({ now: () => prunerClock });
      await admitted(late, intent({ fingerprint: 'pruner-2' }));
      admitterClock = new Date(t0 + 11 * 60_000);
      expect(await admitter.admit(intent({ fingerprint: 'third' }), rules({ nonce }), evaluateAdmission)).toEqual({
        admitted: false,
        reason: 'token_used',
      });
      await Promise.all([admitter.close(), pruner.close(), late.close()]);
    });

    it('lists newest first with owner, since, status and limit filters', async () => {
      const loc = await backend.create();
      let clock = new Date('2026-03-10T01:00:00.000Z');
      const s = await loc.open({ now: () => clock });
      const a = await admitted(s, intent({ fingerprint: 'a', owner: 'alice' }));
      clock = new Date('2026-03-10T02:00:00.000Z');
      const b = await admitted(s, intent({ fingerprint: 'b', owner: 'bob' }));
      const c = await admitted(s, intent({ fingerprint: 'c', owner: 'alice' })); // same instant as b
      await s.observe(c.id, { status: 'completed' });
      const ids = (rs: { id: string }[]) => rs.map((r) => r.id);
      expect(ids(await s.list())).toEqual([c.id, b.id, a.id]);
      expect(ids(await s.list({ owner: 'alice' }))).toEqual([c.id, a.id]);
      expect(ids(await s.list({ since: new Date('2026-03-10T01:30:00.000Z') }))).toEqual([c.id, b.id]);
      expect(ids(await s.list({ status: ['completed'] }))).toEqual([c.id]);
      expect(ids(await s.list({ status: [] }))).toEqual([]);
      expect(ids(await s.list({ limit: 2 }))).toEqual([c.id, b.id]);
      await s.close();
    });

    it('counts spend exactly as reconcile.ts countedCredits does (same records, same figure)', async () => {
      const s = await fresh();
      const cases: [number, JobPatch | undefined][] = [
        [100, undefined], // pending: the estimate
        [100, { outcome: 'submitted', status: 'processing', creditsCharged: 150 }], // running, charge above
        [100, { outcome: 'submitted', status: 'processing', creditsCharged: 0 }], // running, provisional 0
        [100, { outcome: 'submitted', status: 'completed', creditsCharged: 80 }], // final charge
        [100, { outcome: 'submitted', status: 'completed' }], // final, no charge reported
        [100, { outcome: 'submitted', status: 'failed', creditsCharged: 100, creditsRefunded: 100 }],
        // A refund above the charge is refused by the store (step 7, below); the rule stays "never negative".
        [100, { outcome: 'submitted', status: 'failed', creditsCharged: 80, creditsRefunded: 80 }],
        [100, { outcome: 'rejected', status: 'failed' }],
        [100, { outcome: 'unknown' }],
        [250, { outcome: 'submitted', status: 'processing', creditsCharged: 250, creditsRefunded: 50 }],
        // The dedicated family reports only its own estimate: counted like a charge (issue 9).
        [100, { outcome: 'submitted', status: 'processing', platformEstimate: 170 }],
        // Final, no charge reported: its estimate is not a charge, so never below the quote (issue 18).
        [100, { outcome: 'submitted', status: 'completed', platformEstimate: 60 }],
        [100, { outcome: 'submitted', status: 'completed', platformEstimate: 60, creditsCharged: 90 }], // charge wins
        [100, { outcome: 'submitted', status: 'processing', platformEstimate: 120, creditsCharged: 110 }],
      ];
      let n = 0;
      let expected = 0;
      for (const [credits, patch] of cases) {
        const mine = await admitted(s, intent({ fingerprint: `s${n++}` }, credits));
        const settled = patch ? await s.settle(mine.id, patch as never) : mine;
        expected += countedCredits(settled);
      }
      expect(expected).toBe(100 + 150 + 100 + 80 + 100 + 0 + 0 + 0 + 100 + 200 + 170 + 100 + 90 + 120);
      expect(await s.spendSince(DAY)).toBe(expected);
      await s.close();
    });

    it('a job followed by id (track) never counts toward the spend, whatever it was charged (issue 18)', async () => {
      const s = await fresh();
      await admitted(s, intent({ fingerprint: 'paid-here', owner: 'alice' }, 100));
      const followed = await s.track({ ...intent({ fingerprint: 'elsewhere', owner: 'alice' }), estimate: undefined });
      await s.observe(followed.id, { status: 'completed', creditsCharged: 5000 });
      expect(countedCredits(await s.get(followed.id).then((r) => r!))).toBe(0);
      expect(await s.spendSince(DAY)).toBe(100);
      expect(await s.spendSince(DAY, 'alice')).toBe(100);
      const facts = await s.readAdmissionFacts(rules({ user: { owner: 'alice', maxCreditsPerDay: 150 } }));
      expect(facts).toMatchObject({ spentToday: 100, spentByOwner: 100 });
      await s.close();
    });

    it('allow_duplicate past an unknown: refuses an unsettled identical record other than the one consented past', async () => {
      const s = await fresh();
      const first = await admitted(s, intent({ owner: 'alice' }));
      await s.settle(first.id, { outcome: 'unknown', status: 'unknown' });
      const past = (except?: string) => rules({ unsettled: { fingerprint: 'fp-1', owner: 'alice', except } });
      expect(await s.admit(intent({ owner: 'alice' }), past(), evaluateAdmission)).toMatchObject({
        admitted: false,
        reason: 'unsettled',
        record: { id: first.id },
      });
      // Another owner's unknown record is not this caller's concern.
      expect(
        (
          await s.admit(
            intent({ owner: 'bob' }),
            rules({ unsettled: { fingerprint: 'fp-1', owner: 'bob' } }),
            evaluateAdmission,
          )
        ).admitted,
      ).toBe(true);
      const resend = await admitted(s, intent({ owner: 'alice' }), past(first.id));
      // The resend is pending now: a second resend consented past `first` only is refused (it names the resend).
      expect(await s.admit(intent({ owner: 'alice' }), past(first.id), evaluateAdmission)).toMatchObject({
        reason: 'unsettled',
        record: { id: resend.id },
      });
      // A running (submitted) identical job is not unsettled: allow_duplicate may start a second one.
      await s.settle(resend.id, { outcome: 'submitted', status: 'processing', handle: 'actor_video:r1' });
      expect((await s.admit(intent({ owner: 'alice' }), past(first.id), evaluateAdmission)).admitted).toBe(true);
      await s.close();
    });

    it('a held bundle item: queued and counted, claimed by no sender; held → queued is one compare-and-set', async () => {
      const s = await fresh();
      const held = { since: '2026-03-10T12:00:00.000Z', reason: 'waiting for an approval' };
      const ok = await s.admitBundle(
        [
          { ...intent({ fingerprint: 'h-0', held }), outcome: 'queued' },
          { ...intent({ fingerprint: 'h-1' }), outcome: 'queued' },
        ],
        rules(),
        evaluateCampaignAdmission,
      );
      if (!ok.admitted) throw new Error(ok.reason);
      const [h0, h1] = ok.records.map((r) => r.id) as [string, string];
      expect(await s.spendSince(DAY)).toBe(200);
      // No sender's claim (from queued) takes it; a claim of the other item still works.
      expect(await s.claimItem(h0, { outcome: 'pending' })).toBeUndefined();
      expect(await s.claimItem(h1, { held }, 'held')).toBeUndefined();
      // Unheld once (two racing approvals: one wins), then claimed like any queued item.
      const unheld = await Promise.all([
        s.claimItem(h0, { held: undefined }, 'held'),
        s.claimItem(h0, { held: undefined }, 'held'),
      ]);
      expect(unheld.filter(Boolean)).toHaveLength(1);
      expect((await s.get(h0))?.held).toBeUndefined();
      expect((await s.claimItem(h0, { outcome: 'pending' }))?.outcome).toBe('pending');
      // A held item is released from `held` (its reservation returned), never by a plain claim.
      expect(await s.claimItem(h1, { held }, 'queued')).toMatchObject({ held });
      const released = await s.claimItem(h1, { outcome: 'rejected', status: 'failed', reason: 'declined' }, 'held');
      expect(released?.outcome).toBe('rejected');
      expect(await s.spendSince(DAY)).toBe(100);
      await s.close();
    });

    it('a single call is a bundle of one: admitBundle admits it pending under exactly the single-call rules', async () => {
      const s = await fresh();
      const first = await admitted(s, intent({ owner: 'alice' }));
      await s.settle(first.id, { outcome: 'unknown', status: 'unknown' });
      const past = rules({ unsettled: { fingerprint: 'fp-1', owner: 'alice', except: first.id } });
      // Consented past `first` (allow_duplicate after an unknown): the bundle's one item is the call itself, so its
      // facts are the rules' own, exceptions included; no per-item fact refuses it as its own twin.
      const one = await s.admitBundle(
        [{ ...intent({ owner: 'alice' }), outcome: 'pending' }],
        past,
        evaluateBundleOfOne,
      );
      if (!one.admitted) throw new Error(`refused: ${one.reason}`);
      expect(one.records.map((r) => r.outcome)).toEqual(['pending']);
      // Held by its caller: no sweep lists it, no claim takes it.
      expect(await s.queuedBundles()).toEqual([]);
      expect(await s.claimItem(one.records[0]!.id, { outcome: 'pending' })).toBeUndefined();
      // Its duplicate rule is the single call's.
      const dup = rules({ duplicate: { fingerprint: 'fp-1', owner: 'alice' } });
      expect(
        await s.admitBundle([{ ...intent({ owner: 'alice' }), outcome: 'pending' }], dup, evaluateBundleOfOne),
      ).toMatchObject({ admitted: false, reason: 'duplicate', record: { id: one.records[0]!.id } });
      await s.close();
    });

    it('exclusive key: one active record per key; stale records without platform ids stop blocking', async () => {
      const s = await fresh();
      const ex = (staleBefore = DAY) => rules({ exclusive: { key: 'video-1', staleBefore } });
      const first = await admitted(s, intent({ fingerprint: 'u1', exclusiveKey: 'video-1' }), ex());
      expect(
        await s.admit(intent({ fingerprint: 'u2', exclusiveKey: 'video-1' }), ex(), evaluateAdmission),
      ).toMatchObject({
        reason: 'exclusive',
        record: { id: first.id },
      });
      // Pending with no platform ids, older than staleBefore: nothing can re-read it, so it stops blocking.
      expect(
        (await s.admit(intent({ fingerprint: 'u3' }), ex(new Date('2026-03-10T13:00:00Z')), evaluateAdmission))
          .admitted,
      ).toBe(true);
      await s.settle(first.id, { outcome: 'submitted', status: 'processing', handle: 'upscale:t:p:v:b1' });
      expect(
        await s.admit(intent({ fingerprint: 'u4' }), ex(new Date('2026-03-10T13:00:00Z')), evaluateAdmission),
      ).toMatchObject({
        reason: 'exclusive',
      });
      await s.observe(first.id, { status: 'completed' });
      expect(
        (await s.admit(intent({ fingerprint: 'u5', exclusiveKey: 'video-1' }), ex(), evaluateAdmission)).admitted,
      ).toBe(true);
      await s.close();
    });

    it('finds a job by its key whatever handle spells it, and tracks jobs started elsewhere', async () => {
      const s = await fresh();
      const rec = await admitted(s, intent());
      expect((await s.getByRef({ kind: 'submission', id: rec.id }))?.id).toBe(rec.id);
      await s.settle(rec.id, {
        outcome: 'submitted',
        handle: 'model:any:r-1',
        ref: { kind: 'model', media: 'any', id: 'r-1' },
      } as never);
      expect((await s.getByRef({ kind: 'model', media: 'video', id: 'r-1' }))?.id).toBe(rec.id);
      expect(await s.getByRef({ kind: 'model', media: 'video', id: 'r-2' })).toBeUndefined();
      const ext = await s.track({
        ...intent({ fingerprint: 'ext' }),
        tool: 'external',
        estimate: undefined,
        handle: 'gesture:g-1',
      });
      expect((await s.getByRef({ kind: 'gesture', id: 'g-1' }))?.id).toBe(ext.id);
      expect(await s.spendSince(DAY)).toBe(100);
      await s.close();
    });

    it('keeps one consent key of 32 bytes across instances and reopening', async () => {
      const loc = await backend.create();
      const [a, b] = await Promise.all([loc.open(), loc.open()]);
      const [ka, kb] = await Promise.all([a.consentKey(), b.consentKey()]);
      expect(ka).toHaveLength(32);
      expect(kb.equals(ka)).toBe(true);
      await Promise.all([a.close(), b.close()]);
      const c = await loc.open();
      expect((await c.consentKey()).equals(ka)).toBe(true);
      await c.close();
    });

    it('gives one poller lease per job until it expires, whoever asks', async () => {
      const loc = await backend.create();
      let clock = new Date('2026-03-10T12:00:00.000Z');
      const [a, b] = await Promise.all([loc.open({ now: () => clock }), loc.open({ now: () => clock })]);
      expect(await a.tryLease('actor_video:v1', 5000, 'a')).toBe(true);
      expect(await b.tryLease('actor_video:v1', 5000, 'b')).toBe(false);
      expect(await a.tryLease('actor_video:v1', 5000, 'a')).toBe(false);
      expect(await b.tryLease('actor_video:v2', 5000, 'b')).toBe(true);
      clock = new Date(clock.getTime() + 4999);
      expect(await b.tryLease('actor_video:v1', 5000, 'b')).toBe(false);
      clock = new Date(clock.getTime() + 1);
      expect(await b.tryLease('actor_video:v1', 5000, 'b')).toBe(true);
      await Promise.all([a.close(), b.close()]);
    });

    it('admits exactly one of 20 concurrent identical calls, and exactly N under a per-day ceiling of N jobs', async () => {
      const loc = await backend.create();
      const [a, b] = await Promise.all([loc.open(), loc.open()]);
      const dup = rules({ duplicate: { fingerprint: 'same', owner: undefined } });
      const res = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).admit(intent({ fingerprint: 'same' }), dup, evaluateAdmission),
        ),
      );
      expect(res.filter((r) => r.admitted)).toHaveLength(1);
      const day = rules({ maxCreditsPerDay: 100 + 7 * 100 });
      const res2 = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).admit(intent({ fingerprint: `d${i}` }), day, evaluateAdmission),
        ),
      );
      expect(res2.filter((r) => r.admitted)).toHaveLength(7);
      await Promise.all([a.close(), b.close()]);
    });

    it('per-user daily budget inside admit: own spend only, same counting rule, after the account ceiling', async () => {
      const loc = await backend.create();
      const yesterday = await loc.open({ now: at('2026-03-09T23:00:00.000Z') });
      await admitted(yesterday, intent({ fingerprint: 'old', owner: 'alice' }, 900));
      await yesterday.close();
      const s = await loc.open({ now: at('2026-03-10T08:00:00.000Z') });
      const alice = rules({ maxCreditsPerDay: 1000, user: { owner: 'alice', maxCreditsPerDay: 250 } });
      const bob = rules({ maxCreditsPerDay: 1000, user: { owner: 'bob', maxCreditsPerDay: 600 } });
      const a1 = await admitted(s, intent({ fingerprint: 'a1', owner: 'alice' }), alice);
      await admitted(s, intent({ fingerprint: 'b1', owner: 'bob' }, 500), bob);
      // 100 + 200 > 250: refused with alice's own figures (yesterday's 900 and bob's 500 do not count).
      expect(await s.admit(intent({ fingerprint: 'a2', owner: 'alice' }, 200), alice, evaluateAdmission)).toEqual({
        admitted: false,
        reason: 'per_user_day',
        owner: 'alice',
        limit: 250,
        credits: 200,
        spent: 100,
      });
      // A final charge below the quote frees budget, as it does for the account (charge − refunds when final).
      await s.settle(a1.id, {
        outcome: 'submitted',
        status: 'completed',
        handle: 'actor_video:a1',
        creditsCharged: 40,
      });
      await admitted(s, intent({ fingerprint: 'a2', owner: 'alice' }, 200), alice);
      // Exactly the budget is allowed; rejected submissions cost nothing.
      const a3 = await admitted(s, intent({ fingerprint: 'a3', owner: 'alice' }, 10), alice);
      await s.settle(a3.id, { outcome: 'rejected', status: 'failed' });
      await admitted(s, intent({ fingerprint: 'a4', owner: 'alice' }, 10), alice);
      expect(await s.spendSince(DAY, 'alice')).toBe(250);
      // The account ceiling is checked first, whatever the user's budget: 750 + 300 > 1000.
      expect(await s.admit(intent({ fingerprint: 'b2', owner: 'bob' }, 300), bob, evaluateAdmission)).toMatchObject({
        reason: 'per_day',
        spent: 750,
      });
      expect(await s.admit(intent({ fingerprint: 'b2', owner: 'bob' }, 150), bob, evaluateAdmission)).toMatchObject({
        reason: 'per_user_day',
        spent: 500,
        limit: 600,
      });
      await s.close();
    });

    it('concurrent admits of two users racing their budgets and the account ceiling: exactly N admitted', async () => {
      const loc = await backend.create();
      const [a, b] = await Promise.all([loc.open(), loc.open()]);
      const race = async (account: number) => {
        const tag = `r${account}`;
        const calls = Array.from({ length: 24 }, (_, i) => {
          const owner = i % 2 ? 'alice' : 'bob';
          const limit = owner === 'alice' ? 300 : 500;
          const r = rules({ maxCreditsPerDay: account, user: { owner, maxCreditsPerDay: limit } });
          return (i % 3 ? a : b).admit(intent({ fingerprint: `${tag}-${i}`, owner }), r, evaluateAdmission);
        });
        return Promise.all(calls);
      };
      // Account 800 = alice's 3 jobs + bob's 5: both budgets bind exactly.
      const res = await race(800);
      const mine = (o: string) => res.filter((r) => r.admitted && r.record.owner === o).length;
      expect([mine('alice'), mine('bob')]).toEqual([3, 5]);
      // Once both budgets are full the account (800) is full too: each refusal names one of the two ceilings.
      const reasons = new Set(res.flatMap((r) => (r.admitted ? [] : [r.reason])));
      expect([...reasons].every((r) => r === 'per_user_day' || r === 'per_day')).toBe(true);
      expect(await a.spendSince(DAY)).toBe(800);
      await Promise.all([a.close(), b.close()]);
      // A tighter account ceiling than the two budgets: exactly the account's N, each user within theirs.
      const loc2 = await backend.create();
      const [c, d] = await Promise.all([loc2.open(), loc2.open()]);
      const res3 = await Promise.all(
        Array.from({ length: 24 }, (_, i) => {
          const owner = i % 2 ? 'alice' : 'bob';
          const r = rules({
            maxCreditsPerDay: 600,
            user: { owner, maxCreditsPerDay: owner === 'alice' ? 300 : 500 },
          });
          return (i % 3 ? c : d).admit(intent({ fingerprint: `t-${i}`, owner }), r, evaluateAdmission);
        }),
      );
      const ok = res3.filter((r) => r.admitted);
      expect(ok).toHaveLength(6);
      expect(ok.filter((r) => r.record.owner === 'alice').length).toBeLessThanOrEqual(3);
      expect(ok.filter((r) => r.record.owner === 'bob').length).toBeLessThanOrEqual(5);
      expect(await c.spendSince(DAY)).toBe(600);
      await Promise.all([c.close(), d.close()]);
    });

    it('audit trail: an admit row per admitted call, a row per audited change, none for refusals or tracked jobs', async () => {
      const loc = await backend.create();
      let clock = new Date('2026-03-10T12:00:00.000Z');
      const s = await loc.open({ now: () => clock });
      const rec = await admitted(s, intent({ owner: 'alice', consent: 'token' }, 120));
      expect((await s.admit(intent({ fingerprint: 'big' }, 5000), rules(), evaluateAdmission)).admitted).toBe(false);
      expect(
        (
          await s.admit(
            intent({ owner: 'alice' }),
            rules({ duplicate: { fingerprint: 'fp-1', owner: 'alice' } }),
            evaluateAdmission,
          )
        ).admitted,
      ).toBe(false);
      await s.track({
        ...intent({ fingerprint: 'ext' }),
        tool: 'external',
        estimate: undefined,
        handle: 'gesture:g-1',
      });
      const ext = await s.get('gesture:g-1');
      await s.observe(ext!.id, { status: 'completed' });
      clock = new Date('2026-03-10T12:00:01.000Z');
      await s.settle(rec.id, {
        outcome: 'submitted',
        handle: 'actor_video:v9',
        status: 'processing',
        requestId: 'req-9',
        remote: { video_id: 'v9' },
      });
      await s.observe(rec.id, { status: 'processing' }); // nothing audited changed: no row
      clock = new Date('2026-03-10T12:05:00.000Z');
      await s.observe(rec.id, { status: 'completed', creditsCharged: 110, outputs: [] });
      const events = await s.auditEvents();
      expect(events.map((e) => [e.event, e.ledgerId, e.status])).toEqual([
        ['admit', rec.id, 'submitted'],
        ['settle', rec.id, 'processing'],
        ['observe', rec.id, 'completed'],
      ]);
      expect(events[0]).toMatchObject({
        at: '2026-03-10T12:00:00.000Z',
        owner: 'alice',
        tool: 'create_actor_video',
        quoteCredits: 120,
        consent: 'token',
        outcome: 'pending',
      });
      expect(events[1]).toMatchObject({ requestId: 'req-9', outcome: 'submitted', handle: 'actor_video:v9' });
      expect(events[2]).toMatchObject({ charged: 110, at: '2026-03-10T12:05:00.000Z', requestId: 'req-9' });
      // Filters select calls (all their rows) by admission time and owner.
      const bobs = await admitted(s, intent({ fingerprint: 'b', owner: 'bob' }));
      expect((await s.auditEvents({ owner: 'bob' })).map((e) => e.ledgerId)).toEqual([bobs.id]);
      expect((await s.auditEvents({ since: new Date('2026-03-10T12:01:00.000Z') })).map((e) => e.ledgerId)).toEqual([
        bobs.id,
      ]);
      expect(await s.auditEvents({ owner: 'alice' })).toHaveLength(3);
      await s.close();
    });

    it('audit trail is append-only: the database refuses UPDATE and DELETE of its rows', async () => {
      const loc = await backend.create();
      const s = await loc.open();
      await admitted(s, intent({ owner: 'alice' }));
      await expect(loc.exec(`UPDATE ${loc.auditTable} SET owner = 'mallory'`)).rejects.toThrow(/append-only/);
      await expect(loc.exec(`DELETE FROM ${loc.auditTable}`)).rejects.toThrow(/append-only/);
      expect((await s.auditEvents()).map((e) => e.owner)).toEqual(['alice']);
      await s.close();
    });

    it('a job is fixed at admission: the database refuses lowering its quote, moving its day or owner, un-counting it', async () => {
      const loc = await backend.create();
      const s = await loc.open();
      const rec = await admitted(s, intent({ owner: 'alice' }));
      const t = loc.jobsTable;
      const where = `WHERE id = '${rec.id}'`;
      for (const change of [
        'estimate_credits = 0',
        'created_at = created_at - 86400000',
        "owner = 'bob'",
        "fingerprint = 'other'",
        `data = replace(data, '"credits":100', '"credits":0')`,
      ]) {
        await expect(loc.exec(`UPDATE ${t} SET ${change} ${where}`), change).rejects.toThrow(/fixed at admission/);
      }
      // A settled (submitted) record may not be turned into a refused one, which would stop counting.
      await s.settle(rec.id, { outcome: 'submitted', status: 'processing', handle: 'actor_video:j1' });
      await expect(loc.exec(`UPDATE ${t} SET outcome = 'rejected' ${where}`)).rejects.toThrow(/rejected/);
      expect(await s.spendSince(DAY)).toBe(100);
      // What settle and observe change still changes.
      await s.observe(rec.id, { status: 'completed', creditsCharged: 90 });
      expect(await s.spendSince(DAY)).toBe(90);
      await s.close();
    });

    it('the spend columns cannot be moved to zero what the ceilings read: no refund above the charge, no charge lowered below the quote while the job may still run (issue 27)', async () => {
      const loc = await backend.create();
      const s = await loc.open();
      const t = loc.jobsTable;
      const running = await admitted(s, intent({ fingerprint: 'running' }));
      await s.settle(running.id, { outcome: 'submitted', status: 'processing', handle: 'actor_video:r1' });
      const done = await admitted(s, intent({ fingerprint: 'done' }));
      await s.settle(done.id, {
        outcome: 'submitted',
        status: 'completed',
        handle: 'actor_video:d1',
        creditsCharged: 90,
      });
      expect(await s.spendSince(DAY)).toBe(190);
      const refused: [string, string][] = [
        [done.id, 'refunded = 1000000'],
        [done.id, 'refunded = 91'],
        [running.id, 'refunded = 1'],
        [running.id, 'charged = 0'],
        [running.id, 'charged = 99'],
        [done.id, `data = replace(data, '"creditsCharged":90', '"creditsCharged":0')`],
      ];
      for (const [id, change] of refused) {
        await expect(loc.exec(`UPDATE ${t} SET ${change} WHERE id = '${id}'`), change).rejects.toThrow(
          /refund cannot exceed the charge|cannot be lowered below its quote|must equal the charged and refunded/,
        );
      }
      // Through the store's own API: the same refusals.
      await expect(s.observe(done.id, { creditsRefunded: 500 })).rejects.toThrow(/refund cannot exceed/);
      await expect(s.observe(running.id, { creditsCharged: 0 })).rejects.toThrow(/lowered below its quote/);
      expect(await s.spendSince(DAY)).toBe(190);
      // What the platform legitimately reports still lands: a full refund, a charge raised while running, a final
      // charge below the quote, and the POST's answer carrying a first charge below the quote.
      await s.observe(done.id, { creditsRefunded: 90 });
      await s.observe(running.id, { creditsCharged: 120 });
      await s.observe(running.id, { status: 'completed', creditsCharged: 70 });
      const first = await admitted(s, intent({ fingerprint: 'family' }));
      await s.settle(first.id, {
        outcome: 'submitted',
        status: 'processing',
        handle: 'actor_video:f1',
        creditsCharged: 60,
      });
      expect(await s.spendSince(DAY)).toBe(0 + 70 + 100);
      await s.close();
    });

    it('refuses every call once closed', async () => {
      const s = await fresh();
      await s.close();
      await expect(s.admit(intent(), rules(), evaluateAdmission)).rejects.toThrow(/closed|ended/i);
      await expect(s.list()).rejects.toThrow(/closed|ended/i);
    });

    describe('files kept in the store (blobs.ts: uploads, self-served staging)', () => {
      const T = Date.parse('2026-03-10T12:00:00.000Z');
      const pending = (id: string, expiresAt = T + 60_000) =>
        ({
          id,
          purpose: 'upload',
          owner: 'token:a',
          kind: 'image',
          state: 'pending',
          filename: 'a.png',
          expiresAt,
        }) as const;
      async function chunks(b: BlobStore, id: string): Promise<number> {
        let n = 0;
        while (await b.chunk(id, n)) n++;
        return n;
      }

      it('writes in rows of at most 1 MiB and reads back the same bytes', async () => {
        const b = (await fresh()).blobs!();
        await b.create(pending('up-1'), T);
        const bytes = Buffer.alloc(Math.floor(2.5 * CHUNK_BYTES));
        for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32LE(i, i);
        const pieces = [bytes.subarray(0, 10), bytes.subarray(10, 1_500_000), bytes.subarray(1_500_000)];
        const w = await writeChunks(b, 'up-1', pieces, bytes.length);
        await b.complete('up-1', { ...w, contentType: 'image/png', expiresAt: T + 120_000 });
        expect(await chunks(b, 'up-1')).toBe(3);
        for (let n = 0; n < 3; n++) expect((await b.chunk('up-1', n))!.length).toBeLessThanOrEqual(CHUNK_BYTES);
        const back: Buffer[] = [];
        for await (const c of readBlob(b, 'up-1')) back.push(c as Buffer);
        expect(Buffer.concat(back).equals(bytes)).toBe(true);
        expect(await b.get('up-1')).toMatchObject({
          state: 'complete',
          size: bytes.length,
          sha256: w.sha256,
          expiresAt: T + 120_000,
        });
      });

      it('a link is claimed once: of concurrent claims exactly one wins; an expired one never', async () => {
        const b = (await fresh()).blobs!();
        await b.create(pending('up-2'), T);
        const wins = await Promise.all(Array.from({ length: 5 }, () => b.claim('up-2', T + 1)));
        expect(wins.filter(Boolean)).toHaveLength(1);
        await b.create(pending('up-3', T + 10), T);
        expect(await b.claim('up-3', T + 10)).toBe(false);
        expect(await b.claim('unknown', T)).toBe(false);
      });

      it("counts a caller's pending, unexpired upload links only (issue 27 item 6's cap)", async () => {
        const b = (await fresh()).blobs!();
        await b.create(pending('pc-1'), T);
        await b.create(pending('pc-2', T + 10), T);
        await b.create({ ...pending('pc-3'), owner: 'token:b' }, T);
        await b.create(pending('pc-4'), T);
        expect(await b.claim('pc-4', T + 1)).toBe(true);
        expect(await b.pendingUploads('token:a', T + 1)).toBe(2);
        expect(await b.pendingUploads('token:a', T + 10)).toBe(1);
        expect(await b.pendingUploads('token:c', T)).toBe(0);
      });

      it('refuses bytes past the cap', async () => {
        const b = (await fresh()).blobs!();
        await b.create(pending('up-4'), T);
        await expect(writeChunks(b, 'up-4', [Buffer.alloc(100)], 99)).rejects.toBeInstanceOf(TooLargeError);
      });

      it('accepted + fetched: whichever comes second is told the first happened', async () => {
        const b = (await fresh()).blobs!();
        await b.create({ ...pending('st-1'), purpose: 'staged', owner: null, kind: null, state: 'receiving' }, T);
        expect(await b.markFetched('st-1')).toBe(false);
        expect(await b.markAccepted('st-1')).toBe(true);
        await b.create({ ...pending('st-2'), purpose: 'staged', owner: null, kind: null, state: 'receiving' }, T);
        expect(await b.markAccepted('st-2')).toBe(false);
        expect(await b.markFetched('st-2')).toBe(true);
      });

      it('sweep deletes expired rows with their chunks, and nothing else', async () => {
        const b = (await fresh()).blobs!();
        await b.create(pending('old', T + 5), T);
        await b.putChunk('old', 0, Buffer.from('x'));
        await b.create(pending('new', T + 60_000), T);
        await b.putChunk('new', 0, Buffer.from('y'));
        expect(await b.sweep(T + 10)).toBe(1);
        expect(await b.get('old')).toBeUndefined();
        expect(await chunks(b, 'old')).toBe(0);
        expect(await chunks(b, 'new')).toBe(1);
        await b.remove('new');
        expect(await b.get('new')).toBeUndefined();
        expect(await chunks(b, 'new')).toBe(0);
      });
    });
  });
}
