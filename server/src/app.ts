// The Express application: API under /api/v1, the built client for every other route.
import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type Express, type Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import { API_PREFIX } from '@wpv/schema';
import type { Config } from './config.ts';
import { identify } from './http/auth.ts';
import { ApiError, errorHandler, requestId, storeUnavailable } from './http/errors.ts';
import { LoginLimits } from './http/rate-limits.ts';
import { bodyDeadline } from './http/timeouts.ts';
import { authRoutes } from './routes/auth.ts';
import { collectionRoutes } from './routes/collections.ts';
import { Collections } from './services/collections.ts';
import { docsRoutes } from './routes/docs.ts';
import { jobRoutes } from './routes/jobs.ts';
import { plotRoutes } from './routes/plots.ts';
import { selectionRoutes } from './routes/selections.ts';
import { storageRoutes } from './routes/storage.ts';
import { treeRoutes } from './routes/trees.ts';
import { Exporter } from './services/export.ts';
import { Jobs } from './services/jobs.ts';
import { Plots } from './services/plots.ts';
import { Reclusterer } from './services/recluster.ts';
import { Selections } from './services/selections.ts';
import { Users } from './services/users.ts';
import type { AmqpLink } from './storage/amqp.ts';
import type { Store } from './storage/db.ts';
import { StoreWatch } from './storage/reachability.ts';

export interface Services {
  config: Config;
  store: Store;
  amqp: AmqpLink;
}

const CLIENT_ROUTES = ['/', '/login', '/tokens', '/jobs', '/jobs/:id', '/plots/:id'];

export function createApp({ config, store, amqp }: Services): { app: Express; plots: Plots; users: Users; jobs: Jobs; loginLimits: LoginLimits } {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.locals.uploadIdleMs = config.timeouts.uploadIdleMs;
  app.use(requestId);
  app.use(helmet(securityHeaders(config)));
  app.use(bodyDeadline(config.timeouts.bodyMs));

  const users = new Users(store);
  const loginLimits = new LoginLimits(store.db, store.loginFailures, config.loginFailures);
  const blobs = store.blobs;
  const plots = new Plots(store, config.limits);
  const jobs = Jobs.open(store, config, plots.quota);

  const api = express.Router();
  api.use(express.json({ limit: '1mb' }));
  const storeWatch = new StoreWatch(store.client);
  api.get('/health', async (_req, res) => {
    const down = await storeWatch.ping();
    const status = { mongo: down === null ? 'ok' : `down: ${down}`, amqp: amqp.connected ? 'ok' : 'down: not connected' };
    res.status(down === null && amqp.connected ? 200 : 503).json(status);
  });
  // While the store is down every other route answers 503 at once (after one short ping), not after a 10 s wait.
  api.use((_req, _res, next) => {
    storeWatch.reachable().then((down) => next(down === null ? undefined : storeUnavailable()), next);
  });
  api.use(identify(users));
  api.use('/auth', authRoutes(users, loginLimits, config));
  const reclusterer = new Reclusterer(plots, blobs, new Selections(plots, blobs), jobs);
  api.use('/plots', plotRoutes(config, plots, blobs, new Exporter(blobs), reclusterer));
  api.use('/plots', selectionRoutes(plots, blobs));
  api.use('/plots', treeRoutes(config, plots, blobs));
  api.use('/jobs', jobRoutes(config, jobs, plots.quota, storeWatch));
  api.use(collectionRoutes(new Collections(store, plots)));
  api.use(storageRoutes(plots.quota));
  api.use(docsRoutes());
  api.use((req) => {
    throw new ApiError(404, 'not_found', `no route ${req.method} ${API_PREFIX}${req.path}`);
  });
  api.use(errorHandler);
  app.use(API_PREFIX, api);
  app.get('/api/docs', (_req, res) => res.redirect(`${API_PREFIX}/docs`));

  const index = path.join(config.clientDist, 'index.html');
  app.use(express.static(config.clientDist, { index: false, maxAge: '1h' }));
  const sendIndex = (res: Response) => {
    if (existsSync(index)) res.sendFile(index);
    else res.status(503).type('text').send('The client is not built: run "npm run build -w client".');
  };
  // The viewer's embed mode: any site (a notebook) may frame a public plot's page.
  const embeddable = helmet.contentSecurityPolicy({ directives: { ...cspDirectives(config), 'frame-ancestors': ['*'] } });
  app.get('/plots/:id', async (req, res, next) => {
    if (req.query.embed !== '1' || !(await plots.isPublic(String(req.params.id)))) return next();
    res.removeHeader('X-Frame-Options');
    embeddable(req, res, () => sendIndex(res));
  });
  app.get(CLIENT_ROUTES, (_req, res) => sendIndex(res));
  // Any other page: the client's own not-found view (header, link home) with a 404; /api stays JSON.
  app.use((req, res, next) => {
    if (req.path.startsWith('/api/')) return next(new ApiError(404, 'not_found', `no route ${req.method} ${req.path}`));
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    sendIndex(res.status(404));
  });
  app.use(errorHandler);
  return { app, plots, users, jobs, loginLimits };
}

/** Helmet's defaults, with scripts from this origin only and no framing (see the embed route above). */
function cspDirectives(config: Config) {
  return {
    ...helmet.contentSecurityPolicy.getDefaultDirectives(),
    'script-src': ["'self'"],
    'frame-ancestors': ["'none'"],
    // Plain-HTTP deployments (a workstation, a LAN) would have every request upgraded to a missing HTTPS.
    'upgrade-insecure-requests': config.cookieSecure ? [] : null,
  };
}

function securityHeaders(config: Config): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(config) },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: config.cookieSecure,
  };
}
