/** Simulator accounts (keyed by API key), their balances, and their projects. */
import { randomBytes } from 'node:crypto';
import { type ProjectRegistry, type SimAccount, SimHttpError } from './types.js';

export const DEFAULT_CREDITS = 100_000;

export class AccountStore {
  private readonly byKey = new Map<string, SimAccount>();

  /** Defaults for a new account: paid, both features, DEFAULT_CREDITS displayed credits. */
  add(a: Partial<SimAccount> & { key: string }): SimAccount {
    const account: SimAccount = {
      key: a.key,
      credits: a.credits ?? DEFAULT_CREDITS,
      subscription: a.subscription ?? 'paid',
      features: { customAvatar: true, dedicatedFamily: true, ...a.features },
    };
    this.byKey.set(account.key, account);
    return account;
  }

  get(key: string): SimAccount | undefined {
    return this.byKey.get(key);
  }

  all(): SimAccount[] {
    return [...this.byKey.values()];
  }

  /** @throws SimHttpError(insufficientStatus) when the balance does not cover `credits`. */
  charge(account: SimAccount, credits: number, insufficientStatus: 400 | 402): void {
    if (!(credits >= 0)) throw new Error(`simulator bug: charging ${credits} credits`);
    if (account.credits < credits) {
      throw new SimHttpError(
        insufficientStatus,
        `insufficient credits: this costs ${credits}, balance ${account.credits}`,
      );
    }
    account.credits -= credits;
  }

  refund(account: SimAccount, credits: number): void {
    account.credits += credits;
  }
}

export class Projects implements ProjectRegistry {
  private readonly owner = new Map<string, string>();

  resolve(account: SimAccount, projectId: string | undefined): string {
    if (projectId === undefined) {
      const id = `proj_${randomBytes(6).toString('hex')}`;
      this.owner.set(id, account.key);
      return id;
    }
    // Another account's project looks exactly like a missing one: ids must not leak across accounts.
    if (!this.owns(account, projectId)) throw new SimHttpError(404, 'project not found');
    return projectId;
  }

  add(accountKey: string, projectId: string): void {
    this.owner.set(projectId, accountKey);
  }

  owns(account: SimAccount, projectId: string): boolean {
    return this.owner.get(projectId) === account.key;
  }

  /** [projectId, accountKey] pairs (a saved sandbox keeps them). */
  entries(): [string, string][] {
    return [...this.owner.entries()];
  }
}
