import { Router, type Request, type Response } from 'express';
import { Credentials, TokenCreate } from '@wpv/schema';
import { SESSION_COOKIE, readCookie, requireUser, userOf } from '../http/auth.ts';
import { jsonBody } from '../http/body.ts';
import { ApiError, notFound } from '../http/errors.ts';
import type { Config } from '../config.ts';
import type { LoginLimits } from '../http/rate-limits.ts';
import type { Users } from '../services/users.ts';

export function authRoutes(users: Users, limits: LoginLimits, config: Pick<Config, 'cookieSecure' | 'registration'>): Router {
  const router = Router();
  const cookieOptions = { httpOnly: true, sameSite: 'lax', secure: config.cookieSecure, path: '/' } as const;

  router.post('/register', async (req, res) => {
    if (config.registration === 'closed') throw new ApiError(403, 'registration_closed', 'this server takes no new accounts (REGISTRATION=closed): ask its operator for one');
    const { username, password } = jsonBody(Credentials, req);
    await limits.registration(clientAddress(req));
    await users.register(username, password);
    res.status(201).json({ username });
  });

  router.post('/login', async (req, res) => {
    const { username, password } = jsonBody(Credentials, req);
    const canonical = await limits.attempt(username, clientAddress(req), () => users.authenticate(username, password));
    const { cookie, session } = await users.createSession(canonical);
    res.cookie(SESSION_COOKIE, cookie, { ...cookieOptions, maxAge: 14 * 86_400_000 });
    res.json(session);
  });

  router.post('/logout', requireUser, async (req: Request, res: Response) => {
    const cookie = readCookie(req, SESSION_COOKIE);
    if (cookie) await users.endSession(cookie);
    res.clearCookie(SESSION_COOKIE, cookieOptions);
    res.status(204).end();
  });

  router.get('/me', requireUser, (req, res) => {
    res.json({ username: userOf(req), csrfToken: req.caller.csrfToken });
  });

  // Like /me, but 200 for anonymous visitors too: a page checking who is there logs no 401.
  router.get('/session', (req, res) => {
    const { username, csrfToken } = req.caller;
    res.json(username ? { username, csrfToken } : { username: null });
  });

  router.post('/token', async (req, res) => {
    const { username, password, ...options } = jsonBody(TokenCreate, req);
    const canonical = await limits.attempt(username, clientAddress(req), () => users.authenticate(username, password));
    res.status(201).json(await users.createToken(canonical, options));
  });

  router.get('/tokens', requireUser, async (req, res) => {
    res.json(await users.listTokens(userOf(req)));
  });

  // A token revokes itself only (a leaked one must not lock its owner's other scripts out); a
  // session, which took the password, revokes any of its user's tokens.
  router.delete('/tokens/:id', requireUser, async (req, res) => {
    const id = String(req.params.id);
    const { token } = req.caller;
    if (token && token.id !== id) throw new ApiError(403, 'forbidden', 'a token may revoke only itself; sign in to revoke your other tokens');
    if (!(await users.revokeToken(userOf(req), id))) throw notFound('token');
    res.status(204).end();
  });

  return router;
}

/** The client's address: the peer's, or the one a proxy named in TRUST_PROXY forwarded. */
const clientAddress = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';
