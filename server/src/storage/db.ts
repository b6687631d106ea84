// MongoDB connection, collections and the indexes behind every query the API makes.
import { MongoClient, type Collection, type Db, type Document } from 'mongodb';
import { BlobStore } from './blobs.ts';
import type { PlotLinkDoc } from './plot-links.ts';
import type { ActiveJob, JobEvent, JobRecord, JobSlot, OwnedJob, StageTrack } from '@wpv/jobs/model';
import type { JobCollections } from '@wpv/jobs/repository';
import type { TimingsDoc } from '@wpv/jobs/timings';
import type { CollectionDoc, PlotDetailsDoc, PlotDoc, SessionDoc, TokenClaimDoc, TokenDoc, UserDoc } from './documents.ts';

/** The API's collections, the job gateway's among them. */
export interface Store extends JobCollections {
  client: MongoClient;
  db: Db;
  users: Collection<UserDoc>;
  sessions: Collection<SessionDoc>;
  tokens: Collection<TokenDoc>;
  /** The names of each user's tokens, one claim per name (documents.ts). */
  tokenClaims: Collection<TokenClaimDoc>;
  plots: Collection<PlotDoc>;
  plotDetails: Collection<PlotDetailsDoc>;
  collections: Collection<CollectionDoc>;
  /** Failed-login counters of rate-limiter-flexible (http/rate-limits.ts). */
  loginFailures: Collection<Document>;
  /** Re-clustering links between plots (plot-links.ts). */
  plotLinks: Collection<PlotLinkDoc>;
  /** Recent jobs' seconds per stage (@wpv/jobs/timings), one document per job type and stage graph. */
  jobTimings: Collection<TimingsDoc>;
  blobs: BlobStore;
}

export async function openStore(uri: string): Promise<Store> {
  // A heartbeat every 2 s, not the driver's 10: connections refused do not mark the server down,
  // only a failed heartbeat does, and until then a request may wait for the next one (StoreWatch).
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000, heartbeatFrequencyMS: 2000 });
  await client.connect();
  const db = client.db();
  const store: Store = {
    client,
    db,
    users: db.collection<UserDoc>('users'),
    sessions: db.collection<SessionDoc>('sessions'),
    tokens: db.collection<TokenDoc>('tokens'),
    tokenClaims: db.collection<TokenClaimDoc>('token_claims'),
    plots: db.collection<PlotDoc>('plots'),
    plotDetails: db.collection<PlotDetailsDoc>('plot_details'),
    collections: db.collection<CollectionDoc>('collections'),
    loginFailures: db.collection('login_failures'),
    jobs: db.collection<JobRecord>('jobs'),
    jobEvents: db.collection<JobEvent>('job_events'),
    jobTracks: db.collection<StageTrack>('job_tracks'),
    jobActive: db.collection<ActiveJob>('job_active'),
    jobOwners: db.collection<OwnedJob>('job_owners'),
    jobSlots: db.collection<JobSlot>('job_slots'),
    jobTimings: db.collection<TimingsDoc>('job_timings'),
    plotLinks: db.collection<PlotLinkDoc>('plot_links'),
    blobs: new BlobStore(db),
  };
  await createIndexes(store);
  return store;
}

async function createIndexes(s: Store): Promise<void> {
  await Promise.all([
    s.users.createIndex({ username: 1 }, { unique: true }),
    s.sessions.createIndex({ username: 1 }),
    s.tokens.createIndex({ tokenHash: 1 }, { unique: true }),
    s.tokens.createIndex({ username: 1 }),
    s.tokenClaims.createIndex({ name: 1 }, { unique: true }),
    s.plots.createIndex({ owner: 1, updatedAt: -1 }),
    s.plots.createIndex({ visibility: 1, updatedAt: -1 }),
    s.plots.createIndex({ tags: 1 }),
    s.plots.createIndex({ collection: 1 }),
    s.plots.createIndex({ state: 1, createdAt: 1 }),
    s.collections.createIndex({ owner: 1, name: 1 }),
    s.loginFailures.createIndex({ key: 1 }, { unique: true }),
    // Jobs are read by _id (events, records, a user's list); only these two are scanned.
    s.jobActive.createIndex({ owner: 1 }),
    s.jobTracks.createIndex({ open: 1 }),
    s.blobs.createIndexes(),
  ]);
}
