// Accounts, cookie sessions and bearer API tokens. Passwords: argon2id, the
// library default (a test asserts the $argon2id$ prefix).
import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as zxcvbnCommon from '@zxcvbn-ts/language-common';
import * as zxcvbnEnglish from '@zxcvbn-ts/language-en';
import type { TokenCreated, TokenInfo } from '@wpv/schema';
import { ApiError } from '../http/errors.ts';
import type { Store } from '../storage/db.ts';
import { Recent } from '../storage/recent.ts';
import type { TokenClaimDoc, TokenDoc } from '../storage/documents.ts';

const SESSION_DAYS = 14;
// Signed in from this many browsers at once at most: a login beyond it ends the user's oldest
// sessions, so logging in in a loop cannot grow the sessions without bound.
export const MAX_SESSIONS_PER_USER = 50;
// Sessions and tokens are looked up on every request; remembering an answer this
// long saves a store round trip per request (the store is the bottleneck under
// load). Logout and revocation clear this process's entries at once; another
// server process sees them after at most this long.
const LOOKUP_CACHE_MS = 5_000;
// A token is stored one round trip after its name's claim; a claim this old with no token behind it
// was left by a crash (or a revocation cut short) and no longer holds the name.
const CLAIM_GRACE_MS = 60_000;
// A real hash to verify against when the user does not exist, so timing does not reveal accounts.
const DUMMY_HASH = hash('not a password of anyone');

// zxcvbn's score 3 ("safely unguessable: moderate protection from offline slow-hash attacks")
// turns away dictionary words, keyboard runs, repeats and l33t variants of them.
const MIN_PASSWORD_SCORE = 3;
let estimator: ZxcvbnFactory | undefined; // built on first use: loading its dictionaries takes ~1 s

/** A 422 naming `password` for a guessable password or one that is the username (zxcvbn also scores it down for containing it). */
export function checkPasswordStrength(username: string, password: string): void {
  if (password.toLowerCase() === username.toLowerCase()) {
    throw new ApiError(422, 'weak_password', 'password: must not be the username', 'password');
  }
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...zxcvbnCommon.dictionary, ...zxcvbnEnglish.dictionary },
    graphs: zxcvbnCommon.adjacencyGraphs,
    translations: zxcvbnEnglish.translations,
  });
  const { score, feedback } = estimator.check(password, [username, 'webplotviz', 'plotviz']);
  if (score < MIN_PASSWORD_SCORE) {
    const why = [feedback.warning, ...feedback.suggestions].filter(Boolean).join(' ');
    throw new ApiError(422, 'weak_password', `password: too easy to guess${why ? ` (${why})` : ''}; a few unrelated words make a strong one`, 'password');
  }
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

export interface Session {
  username: string;
  csrfToken: string;
}

export class Users {
  // Keyed by the secret's hash.
  private readonly sessions = new Recent<Session & { expiresAt: number }>(LOOKUP_CACHE_MS);
  private readonly tokens = new Recent<string>(LOOKUP_CACHE_MS);

  constructor(private readonly store: Store) {}

  async register(username: string, password: string): Promise<void> {
    checkPasswordStrength(username, password);
    const passwordHash = await hash(password);
    try {
      await this.store.users.insertOne({ _id: username.toLowerCase(), username, passwordHash, createdAt: new Date() });
    } catch (err) {
      if ((err as { code?: number }).code === 11000) throw new ApiError(409, 'conflict', 'username is taken', 'username');
      throw err;
    }
  }

  /** The canonical username when the password is right; otherwise a 401. */
  async authenticate(username: string, password: string): Promise<string> {
    const user = await this.store.users.findOne({ _id: username.toLowerCase() });
    const ok = await verify(user?.passwordHash ?? (await DUMMY_HASH), password).catch(() => false);
    if (!user || !ok) throw new ApiError(401, 'bad_credentials', 'wrong username or password');
    return user.username;
  }

  async exists(username: string): Promise<boolean> {
    return (await this.store.users.countDocuments({ username }, { limit: 1 })) > 0;
  }

  async createSession(username: string): Promise<{ cookie: string; session: Session }> {
    const cookie = randomToken();
    const now = new Date();
    const session = { username, csrfToken: randomToken(24) };
    const id = sha256(cookie);
    await this.store.sessions.insertOne({
      _id: id,
      ...session,
      createdAt: now,
      expiresAt: new Date(now.getTime() + SESSION_DAYS * 86_400_000),
    });
    const oldest = await this.store.sessions
      .find({ username, _id: { $ne: id } }, { projection: { _id: 1 }, sort: { createdAt: -1, _id: 1 }, skip: MAX_SESSIONS_PER_USER - 1 })
      .toArray();
    if (oldest.length) {
      for (const { _id } of oldest) this.sessions.delete(_id);
      await this.store.sessions.deleteMany({ _id: { $in: oldest.map((s) => s._id) } });
    }
    return { cookie, session };
  }

  /** Deletes the sessions past their expiry, what a TTL index would do (FerretDB has none); presented again, one goes at once. */
  async sweepExpiredSessions(): Promise<number> {
    return (await this.store.sessions.deleteMany({ expiresAt: { $lt: new Date() } })).deletedCount;
  }

  async session(cookie: string): Promise<Session | null> {
    const id = sha256(cookie);
    const found = await this.sessions.get(id, async () => {
      const doc = await this.store.sessions.findOne({ _id: id });
      return doc && { username: doc.username, csrfToken: doc.csrfToken, expiresAt: doc.expiresAt.getTime() };
    });
    if (!found) return null;
    if (found.expiresAt < Date.now()) {
      this.sessions.delete(id);
      await this.store.sessions.deleteOne({ _id: id });
      return null;
    }
    return { username: found.username, csrfToken: found.csrfToken };
  }

  async endSession(cookie: string): Promise<void> {
    const id = sha256(cookie);
    this.sessions.delete(id);
    await this.store.sessions.deleteOne({ _id: id });
  }

  /** A token named `name`, or, without one, the first free "API token <n>" (names are unique per user). */
  async createToken(username: string, name?: string): Promise<TokenCreated> {
    const token = `wpv_${randomToken()}`;
    const named = (tokenName: string): TokenDoc => ({
      _id: randomToken(12),
      tokenHash: sha256(token),
      username,
      name: tokenName,
      prefix: token.slice(0, 10),
      createdAt: new Date(),
      lastUsedAt: null,
    });
    if (name !== undefined) {
      const doc = named(name);
      if (await this.insertToken(doc)) return { ...tokenInfo(doc), token };
      throw new ApiError(409, 'conflict', `you already have a token named ${JSON.stringify(name)}; choose another name, or revoke that token first`, 'name');
    }
    for (let n = 1; ; n++) {
      const doc = named(`API token ${n}`);
      if (await this.insertToken(doc)) return { ...tokenInfo(doc), token };
    }
  }

  /**
   * Stores the token unless the user has one of that name (false). The name is claimed first, for
   * this token (claimTokenName); a token of that name found after the insert backs it out: one
   * made before names were claimed, or one whose request stalled past CLAIM_GRACE_MS and lost its
   * claim (each of the two requests counts after its insert, so at least one sees the other).
   */
  private async insertToken(doc: TokenDoc): Promise<boolean> {
    if (!(await this.claimTokenName(doc))) return false;
    let stored = false;
    try {
      await this.store.tokens.insertOne(doc);
      stored = (await this.store.tokens.countDocuments({ username: doc.username, name: doc.name }, { limit: 2 })) === 1;
      if (!stored) await this.store.tokens.deleteOne({ _id: doc._id });
    } finally {
      if (!stored) await this.store.tokenClaims.deleteOne({ _id: doc._id });
    }
    return stored;
  }

  /**
   * Claims the token's name by a claim document with the token's _id (a unique index on the name
   * is the guard FerretDB applies atomically to concurrent requests); false while another claim
   * holds it. An abandoned claim is taken over: deleted by its own _id, never by name (a claim
   * made meanwhile stays), then claimed again, which one of requests taking over together wins.
   */
  private async claimTokenName({ _id, username, name }: TokenDoc): Promise<boolean> {
    const claim: TokenClaimDoc = { _id, name: tokenNameKey(username, name), claimedAt: new Date() };
    if (await this.insertClaim(claim)) return true;
    const held = await this.store.tokenClaims.findOne({ name: claim.name });
    if (held && !(await this.abandoned(held))) return false;
    if (held) await this.store.tokenClaims.deleteOne({ _id: held._id });
    return this.insertClaim(claim);
  }

  private async insertClaim(claim: TokenClaimDoc): Promise<boolean> {
    try {
      await this.store.tokenClaims.insertOne(claim);
      return true;
    } catch (err) {
      if ((err as { code?: number }).code === 11000) return false;
      throw err;
    }
  }

  /** A claim with no token, older than a request needs to store its token: its request ended between the two, or a revocation after the token. */
  private async abandoned(claim: TokenClaimDoc): Promise<boolean> {
    if (Date.now() - claim.claimedAt.getTime() < CLAIM_GRACE_MS) return false;
    return !(await this.store.tokens.countDocuments({ _id: claim._id }, { limit: 1 }));
  }

  async listTokens(username: string): Promise<TokenInfo[]> {
    const docs = await this.store.tokens.find({ username }).sort({ createdAt: -1 }).toArray();
    return docs.map(tokenInfo);
  }

  async revokeToken(username: string, id: string): Promise<boolean> {
    const revoked = await this.store.tokens.findOneAndDelete({ _id: id, username });
    if (!revoked) return false;
    this.tokens.delete(revoked.tokenHash);
    await this.store.tokenClaims.deleteOne({ _id: revoked._id });
    return true;
  }

  /** The token's owner, or null for an unknown or revoked token. lastUsedAt is as fresh as the cache. */
  async tokenUser(token: string): Promise<string | null> {
    const tokenHash = sha256(token);
    return this.tokens.get(tokenHash, async () => {
      const doc = await this.store.tokens.findOneAndUpdate({ tokenHash }, { $set: { lastUsedAt: new Date() } });
      return doc?.username ?? null;
    });
  }
}

/** Usernames hold no "/", so "<username>/<name>" names one user's token name. */
const tokenNameKey = (username: string, name: string) => `${username}/${name}`;

function tokenInfo(doc: TokenDoc): TokenInfo {
  return {
    id: doc._id,
    name: doc.name,
    prefix: doc.prefix,
    createdAt: doc.createdAt.toISOString(),
    lastUsedAt: doc.lastUsedAt?.toISOString() ?? null,
  };
}
