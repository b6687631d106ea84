// Who is asking: a bearer token (scripts) or a session cookie (browser).
// Cookie-authenticated writes must echo the session's CSRF token in X-CSRF-Token;
// bearer requests cannot be forged cross-site, so they need none.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { TokenScope } from '@wpv/schema';
import type { Users } from '../services/users.ts';
import { ApiError, clip, unauthorized } from './errors.ts';

export const SESSION_COOKIE = 'wpv_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface Caller {
  username: string | null;
  via: 'token' | 'session' | 'none';
  csrfToken?: string;
  /** The bearer token's id and scope. */
  token?: { id: string; scope: TokenScope };
}

declare module 'express-serve-static-core' {
  interface Request {
    caller: Caller;
  }
}

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeCookie(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** A value that is not valid percent-encoding names no session: the request goes on as anonymous. */
function decodeCookie(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

export function identify(users: Users): RequestHandler {
  return async (req, _res, next) => {
    try {
      req.caller = { username: null, via: 'none' };
      const authorization = req.headers.authorization;
      if (authorization) {
        const match = /^Bearer\s+(\S+)$/i.exec(authorization);
        if (!match) {
          // A Basic (or other) scheme, or a Bearer without one token: say what is expected, not that a token is unknown.
          const scheme = clip(authorization.split(/\s/)[0]!, 20);
          const sent = /^bearer$/i.test(scheme) ? 'got no single token after it' : `got the ${scheme} scheme`;
          throw new ApiError(401, 'unauthorized', `expected "Authorization: Bearer <token>"; ${sent}`, undefined, { 'WWW-Authenticate': 'Bearer' });
        }
        const holder = await users.tokenUser(match[1]!);
        if (!holder) throw new ApiError(401, 'bad_token', 'the bearer token is unknown, revoked or expired');
        req.caller = { username: holder.username, via: 'token', token: { id: holder.id, scope: holder.scope } };
        return next();
      }
      const cookie = readCookie(req, SESSION_COOKIE);
      const session = cookie ? await users.session(cookie) : null;
      if (session) req.caller = { username: session.username, via: 'session', csrfToken: session.csrfToken };
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** Requests that act as a user go through here; it is also where cookie writes meet the CSRF check, and read-only tokens' writes are refused. */
export function requireUser(req: Request, _res: Response, next: NextFunction): void {
  const { username, via, csrfToken, token } = req.caller;
  if (!username) return next(unauthorized());
  if (token?.scope === 'read' && !SAFE_METHODS.has(req.method)) {
    return next(new ApiError(403, 'read_only_token', 'this token may only read (scope "read"); use a full token or sign in to change anything'));
  }
  if (via === 'session' && !SAFE_METHODS.has(req.method) && req.get('x-csrf-token') !== csrfToken) {
    return next(new ApiError(403, 'csrf', 'missing or wrong X-CSRF-Token header for a cookie-authenticated request'));
  }
  next();
}

/** The signed-in username; call only behind requireUser. */
export const userOf = (req: Request): string => req.caller.username!;
