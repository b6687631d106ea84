// Password guessing limits for login and token creation, per account and per client
// address, shared by every API process through the store (rate-limiter-flexible's
// Mongo backend). Each attempt counts before its password is checked, so parallel
// guesses cannot all slip in before the first failure is recorded; a success clears
// the account's count and gives the address its attempt back.
//
// FerretDB 1.24 lacks two things the Mongo backend assumes: TTL indexes (rejected as
// "not implemented", so expired counters are deleted here instead) and isolation of
// concurrent findOneAndUpdate $inc (parallel increments are lost). An in-process
// counter in front of the shared one keeps each process exact; across processes the
// shared count can undercount bursts, bounded by the per-process limit.
import { RateLimiterMemory, RateLimiterMongo, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Collection, Db } from 'mongodb';
import type { Config } from '../config.ts';
import { ApiError } from './errors.ts';

class Limit {
  private readonly local: RateLimiterMemory;
  private readonly shared: RateLimiterMongo;

  constructor(db: Db, collection: string, prefix: string, points: number, duration: number) {
    this.local = new RateLimiterMemory({ keyPrefix: prefix, points, duration });
    this.shared = new RateLimiterMongo({ storeClient: db, tableName: collection, keyPrefix: prefix, points, duration, disableIndexesCreation: true });
  }

  /** Counts one attempt; the seconds to wait when over the limit, else 0. */
  async consume(key: string): Promise<number> {
    for (const limiter of [this.local, this.shared] as RateLimiterAbstract[]) {
      try {
        await limiter.consume(key);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        throw rejection; // the store failed: the request fails rather than going unlimited
      }
    }
    return 0;
  }

  async giveBack(key: string): Promise<void> {
    await Promise.all([this.local.reward(key, 1), this.shared.reward(key, 1)]);
  }

  async reset(key: string): Promise<void> {
    await Promise.all([this.local.delete(key), this.shared.delete(key)]);
  }
}

export class LoginLimits {
  private readonly perAccount: Limit;
  private readonly perAddress: Limit;
  private readonly registrations: Limit;

  /** `counters`: the store's collection of shared counters (unique index on `key`, db.ts). */
  constructor(
    db: Db,
    private readonly counters: Collection,
    limits: Config['loginFailures'],
  ) {
    this.perAccount = new Limit(db, counters.collectionName, 'account', limits.perAccount, limits.windowS);
    this.perAddress = new Limit(db, counters.collectionName, 'address', limits.perAddress, limits.windowS);
    this.registrations = new Limit(db, counters.collectionName, 'register', limits.registrationsPerAddress, limits.windowS);
  }

  /** Deletes expired counters (what a TTL index would do). */
  async sweep(): Promise<number> {
    return (await this.counters.deleteMany({ expire: { $lt: new Date() } })).deletedCount;
  }

  /**
   * Counts a registration from `address`, whatever its outcome (each hashes a password): a 429 with
   * Retry-After when the address is over its limit. Accounts are what per-user limits count, so
   * they cannot be made in bulk.
   */
  async registration(address: string): Promise<void> {
    const wait = await this.registrations.consume(address);
    if (wait > 0) {
      throw new ApiError(429, 'too_many_registrations', `too many accounts registered from this address; try again in ${wait} s`, undefined, {
        'Retry-After': String(wait),
      });
    }
  }

  /**
   * Runs a password check as one attempt of `username` from `address`: a 429 with
   * Retry-After when either is over its limit, the attempt given back when `check` succeeds.
   */
  async attempt<T>(username: string, address: string, check: () => Promise<T>): Promise<T> {
    const account = username.toLowerCase();
    // An attempt refused for its account does not also count against its address.
    const wait = (await this.perAccount.consume(account)) || (await this.perAddress.consume(address));
    if (wait > 0) {
      throw new ApiError(429, 'too_many_attempts', `too many failed logins for this account or address; try again in ${wait} s`, undefined, {
        'Retry-After': String(wait),
      });
    }
    const result = await check();
    // The owner got in: the account's failures are forgiven; the address (maybe shared by many) gets this attempt back.
    await Promise.all([this.perAccount.reset(account), this.perAddress.giveBack(address)]);
    return result;
  }
}
