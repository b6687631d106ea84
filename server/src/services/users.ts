// Accounts, cookie sessions and bearer API tokens. Passwords: argon2id, the
// library default (a test asserts the $argon2id$ prefix).
import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { TokenCreated, TokenInfo } from '@wpv/schema';
import { ApiError } from '../http/errors.ts';
import type { Store } from '../storage/db.ts';
import type { TokenDoc } from '../storage/documents.ts';

const SESSION_DAYS = 14;
// A real hash to verify against when the user does not exist, so timing does not reveal accounts.
const DUMMY_HASH = hash('not a password of anyone');

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

export interface Session {
  username: string;
  csrfToken: string;
}

export class Users {
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
    const doc = await this.store.sessions.findOne({ _id: sha256(cookie) });
    if (!doc) return null;
    if (doc.expiresAt.getTime() < Date.now()) {
      await this.store.sessions.deleteOne({ _id: doc._id });
      return null;
    }
    return { username: doc.username, csrfToken: doc.csrfToken };
  }

  async endSession(cookie: string): Promise<void> {
    await this.store.sessions.deleteOne({ _id: sha256(cookie) });
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
    return result.deletedCount === 1;
  }

  /** The token's owner, or null for an unknown or revoked token. */
  async tokenUser(token: string): Promise<string | null> {
    const doc = await this.store.tokens.findOneAndUpdate(
      { tokenHash: sha256(token) },
      { $set: { lastUsedAt: new Date() } },
    );
    return doc?.username ?? null;
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
