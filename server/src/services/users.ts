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
import type { TokenDoc } from '../storage/documents.ts';

const SESSION_DAYS = 14;
// Sessions and tokens are looked up on every request; remembering an answer this
// long saves a store round trip per request (the store is the bottleneck under
// load). Logout and revocation clear this process's entries at once; another
// server process sees them after at most this long.
const LOOKUP_CACHE_MS = 5_000;
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
    await this.store.sessions.insertOne({
      _id: sha256(cookie),
      ...session,
      createdAt: now,
      expiresAt: new Date(now.getTime() + SESSION_DAYS * 86_400_000),
    });
    return { cookie, session };
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
    let claimed = name;
    if (claimed === undefined) {
      for (let n = 1; claimed === undefined; n++) if (await this.claimTokenName(username, `API token ${n}`)) claimed = `API token ${n}`;
    } else if (!(await this.claimTokenName(username, claimed))) {
      throw new ApiError(409, 'conflict', `you already have a token named ${JSON.stringify(claimed)}; choose another name, or revoke that token first`, 'name');
    }
    const doc: TokenDoc = {
      _id: randomToken(12),
      tokenHash: sha256(token),
      username,
      name: claimed,
      prefix: token.slice(0, 10),
      createdAt: new Date(),
      lastUsedAt: null,
    };
    try {
      await this.store.tokens.insertOne(doc);
    } catch (err) {
      await this.store.tokenNames.deleteOne({ _id: tokenNameId(username, claimed) });
      throw err;
    }
    return { ...tokenInfo(doc), token };
  }

  /**
   * Claims a token name by an insert-only document (the unique _id is the guard FerretDB
   * gives concurrent requests); false when it is taken, also by a token made before names
   * were claimed (the claim then stays: it now guards that token's name).
   */
  private async claimTokenName(username: string, name: string): Promise<boolean> {
    try {
      await this.store.tokenNames.insertOne({ _id: tokenNameId(username, name) });
    } catch (err) {
      if ((err as { code?: number }).code === 11000) return false;
      throw err;
    }
    return !(await this.store.tokens.countDocuments({ username, name }, { limit: 1 }));
  }

  async listTokens(username: string): Promise<TokenInfo[]> {
    const docs = await this.store.tokens.find({ username }).sort({ createdAt: -1 }).toArray();
    return docs.map(tokenInfo);
  }

  async revokeToken(username: string, id: string): Promise<boolean> {
    const revoked = await this.store.tokens.findOneAndDelete({ _id: id, username });
    if (!revoked) return false;
    this.tokens.delete(revoked.tokenHash);
    await this.store.tokenNames.deleteOne({ _id: tokenNameId(username, revoked.name) });
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
const tokenNameId = (username: string, name: string) => `${username}/${name}`;

function tokenInfo(doc: TokenDoc): TokenInfo {
  return {
    id: doc._id,
    name: doc.name,
    prefix: doc.prefix,
    createdAt: doc.createdAt.toISOString(),
    lastUsedAt: doc.lastUsedAt?.toISOString() ?? null,
  };
}
