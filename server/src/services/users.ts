// Accounts, cookie sessions and bearer API tokens. Passwords: argon2id, the
// library default (a test asserts the $argon2id$ prefix).
import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { TokenCreated, TokenInfo } from '@wpv/schema';
import { ApiError } from '../http/errors.ts';
import type { Store } from '../storage/db.ts';
import type { TokenDoc } from '../storage/documents.ts';

const SESSION_DAYS = 14;
// Sessions and tokens are looked up on every request; remembering an answer this
// long saves a store round trip per request (the store is the bottleneck under
// load). Logout and revocation clear this process's entries at once; another
// server process sees them after at most this long.
const LOOKUP_CACHE_MS = 5_000;
// A real hash to verify against when the user does not exist, so timing does not reveal accounts.
const DUMMY_HASH = hash('not a password of anyone');

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

export interface Session {
  username: string;
  csrfToken: string;
}

/** Answers keyed by a secret's hash, each kept for LOOKUP_CACHE_MS. */
class RecentLookups<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.until > Date.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: T): void {
    if (this.entries.size > 10_000) this.entries.clear(); // bounded: many distinct callers just miss more often
    this.entries.set(key, { value, until: Date.now() + LOOKUP_CACHE_MS });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  deleteWhere(matches: (value: T) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }
}

export class Users {
  private readonly sessions = new RecentLookups<Session & { expiresAt: number }>();
  private readonly tokens = new RecentLookups<{ id: string; username: string }>();

  constructor(private readonly store: Store) {}

  async register(username: string, password: string): Promise<void> {
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
    const cached = this.sessions.get(id);
    if (cached && cached.expiresAt > Date.now()) return { username: cached.username, csrfToken: cached.csrfToken };
    const doc = await this.store.sessions.findOne({ _id: id });
    if (!doc) return null;
    if (doc.expiresAt.getTime() < Date.now()) {
      await this.store.sessions.deleteOne({ _id: doc._id });
      return null;
    }
    const session = { username: doc.username, csrfToken: doc.csrfToken };
    this.sessions.set(id, { ...session, expiresAt: doc.expiresAt.getTime() });
    return session;
  }

  async endSession(cookie: string): Promise<void> {
    const id = sha256(cookie);
    this.sessions.delete(id);
    await this.store.sessions.deleteOne({ _id: id });
  }

  async createToken(username: string, name: string): Promise<TokenCreated> {
    const token = `wpv_${randomToken()}`;
    const doc: TokenDoc = {
      _id: randomToken(12),
      tokenHash: sha256(token),
      username,
      name,
      prefix: token.slice(0, 10),
      createdAt: new Date(),
      lastUsedAt: null,
    };
    await this.store.tokens.insertOne(doc);
    return { ...tokenInfo(doc), token };
  }

  async listTokens(username: string): Promise<TokenInfo[]> {
    const docs = await this.store.tokens.find({ username }).sort({ createdAt: -1 }).toArray();
    return docs.map(tokenInfo);
  }

  async revokeToken(username: string, id: string): Promise<boolean> {
    const result = await this.store.tokens.deleteOne({ _id: id, username });
    this.tokens.deleteWhere((token) => token.id === id);
    return result.deletedCount === 1;
  }

  /** The token's owner, or null for an unknown or revoked token. lastUsedAt is as fresh as the cache. */
  async tokenUser(token: string): Promise<string | null> {
    const tokenHash = sha256(token);
    const cached = this.tokens.get(tokenHash);
    if (cached) return cached.username;
    const doc = await this.store.tokens.findOneAndUpdate({ tokenHash }, { $set: { lastUsedAt: new Date() } });
    if (!doc) return null;
    this.tokens.set(tokenHash, { id: doc._id, username: doc.username });
    return doc.username;
  }
}

function tokenInfo(doc: TokenDoc): TokenInfo {
  return {
    id: doc._id,
    name: doc.name,
    prefix: doc.prefix,
    createdAt: doc.createdAt.toISOString(),
    lastUsedAt: doc.lastUsedAt?.toISOString() ?? null,
  };
}
