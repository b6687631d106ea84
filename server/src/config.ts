// Settings from the environment. MONGODB_URI and AMQP_URL are required here:
// scripts/up.sh and the test harness point them at the embedded FerretDB/RabbitMQ.
import path from 'node:path';
import { intFromEnv } from '@wpv/jobs/env';
import { UPLOAD_IDLE_MS } from './http/upload.ts';

/** Numeric settings are read the same way by the API and the job gateway's processes. */
export { intFromEnv };

export interface Config {
  port: number;
  host: string;
  mongodbUri: string;
  amqpUrl: string;
  dataDir: string;
  clientDist: string;
  cookieSecure: boolean;
  limits: {
    uploadBytes: number;
    points: number;
    frames: number;
    uncompressedBytes: number;
    compressionRatio: number;
    clusters: number;
    /** Metadata columns per plot, and distinct values of one category column. */
    columns: number;
    columnCategories: number;
    thumbnailBytes: number;
    viewBytes: number;
    /** Saved views per plot. */
    views: number;
    /** A plot's details (cluster table + views) as stored: under the store's 16 MB document limit. */
    detailsBytes: number;
    /** Open progress streams per user. */
    eventStreams: number;
    /** Bytes of plots each user may store (services/storage-quota.ts). */
    userStorageBytes: number;
  };
  timeouts: {
    /** An upload sending nothing for this long is cut off. */
    uploadIdleMs: number;
    /** Any other request body must be whole within this long. */
    bodyMs: number;
  };
  /**
   * Failed logins and token creations allowed per account and per client address in `windowS` seconds,
   * and registrations (each, whatever its outcome, a password hash) per client address in the same window.
   */
  loginFailures: { perAccount: number; perAddress: number; windowS: number; registrationsPerAddress: number };
  /** Whether anyone may register (`open`), or no new account is taken (`closed`: the operator's accounts only). */
  registration: 'open' | 'closed';
  /**
   * Which peers' X-Forwarded-For names the client (Express's `trust proxy`): false, the default, believes
   * no header, as any local process could otherwise pose as any address to the per-address limits.
   */
  trustProxy: boolean | number | string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const root = path.resolve(import.meta.dirname, '../..');
  const mongodbUri = env.MONGODB_URI;
  const amqpUrl = env.AMQP_URL;
  if (!mongodbUri) throw new Error('MONGODB_URI is not set (scripts/up.sh sets it for the embedded FerretDB)');
  if (!amqpUrl) throw new Error('AMQP_URL is not set (scripts/up.sh sets it for the embedded RabbitMQ)');
  const uploadBytes = intFromEnv(env, 'MAX_UPLOAD_BYTES', 1024 * 1024 * 1024);
  return {
    port: intFromEnv(env, 'PORT', 8080),
    host: env.HOST || '0.0.0.0',
    mongodbUri,
    amqpUrl,
    dataDir: path.resolve(env.DATA_DIR || path.join(root, 'data')),
    clientDist: path.resolve(env.CLIENT_DIST || path.join(root, 'client/dist')),
    cookieSecure: env.COOKIE_SECURE === 'true',
    limits: {
      uploadBytes,
      points: intFromEnv(env, 'MAX_POINTS', 4_000_000),
      frames: intFromEnv(env, 'MAX_FRAMES', 2000),
      uncompressedBytes: intFromEnv(env, 'MAX_UNCOMPRESSED_BYTES', 4 * uploadBytes),
      compressionRatio: intFromEnv(env, 'MAX_COMPRESSION_RATIO', 200),
      clusters: intFromEnv(env, 'MAX_CLUSTERS', 50_000),
      columns: intFromEnv(env, 'MAX_COLUMNS', 64),
      columnCategories: intFromEnv(env, 'MAX_COLUMN_CATEGORIES', 200_000),
      thumbnailBytes: 256 * 1024,
      viewBytes: 64 * 1024,
      views: intFromEnv(env, 'MAX_VIEWS', 200),
      detailsBytes: Math.min(intFromEnv(env, 'MAX_PLOT_DETAILS_BYTES', 15 * 1024 * 1024), 15 * 1024 * 1024),
      eventStreams: intFromEnv(env, 'MAX_EVENT_STREAMS', 5),
      userStorageBytes: intFromEnv(env, 'USER_STORAGE_BYTES', 20 * 1024 ** 3),
    },
    timeouts: {
      uploadIdleMs: intFromEnv(env, 'UPLOAD_IDLE_MS', UPLOAD_IDLE_MS),
      bodyMs: intFromEnv(env, 'BODY_TIMEOUT_MS', 30_000),
    },
    loginFailures: {
      perAccount: intFromEnv(env, 'LOGIN_FAILURES_PER_ACCOUNT', 10),
      perAddress: intFromEnv(env, 'LOGIN_FAILURES_PER_ADDRESS', 50),
      windowS: intFromEnv(env, 'LOGIN_FAILURE_WINDOW_S', 15 * 60),
      registrationsPerAddress: intFromEnv(env, 'REGISTRATIONS_PER_ADDRESS', 20),
    },
    registration: registrationFromEnv(env.REGISTRATION),
    trustProxy: trustProxyFromEnv(env.TRUST_PROXY),
  };
}

function registrationFromEnv(value: string | undefined): Config['registration'] {
  if (!value || value === 'open') return 'open';
  if (value === 'closed') return 'closed';
  throw new Error(`REGISTRATION=${value}: expected open or closed`);
}

/** TRUST_PROXY: unset or "false": none; a number: that many proxies in front; else Express's list ("loopback", "10.0.0.1, 10.0.0.0/8"). */
function trustProxyFromEnv(value: string | undefined): Config['trustProxy'] {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'false') return false;
  return /^\d+$/.test(text) ? Number(text) : text;
}
