// Starts the API server: store, broker link, HTTP; stops cleanly on SIGTERM/SIGINT.
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { createApp } from './app.ts';
import { loadConfig } from './config.ts';
import { configureTimeouts } from './http/timeouts.ts';
import { sweepUploadTmp } from './http/upload.ts';
import { startHousekeeping } from './services/housekeeping.ts';
import { backfillThumbnails } from './services/thumbnails.ts';
import { AmqpLink } from './storage/amqp.ts';
import { openStore } from './storage/db.ts';

if (os.endianness() !== 'LE') throw new Error('WebPlotViz serves little-endian binary data and needs a little-endian host');

// Every request's failures are caught where they happen; one that escapes is a bug to find in the log.
// (Node would otherwise end the process, and every user's requests with it.)
process.on('unhandledRejection', (reason) => console.error('unhandled promise rejection (a bug: please report it):', reason));

const config = loadConfig();
const store = await openStore(config.mongodbUri);
const amqp = new AmqpLink(config.amqpUrl);
await amqp.start();
const { app, plots, users, loginLimits } = createApp({ config, store, amqp });
// Crash leftovers, expired sessions and login counters: now, then every 10 minutes.
const housekeeping = startHousekeeping({ plots, blobs: store.blobs, users, loginLimits });
await housekeeping.sweep();
const moved = await plots.moveChildLists();
if (moved) console.log(`moved the re-clustering lists of ${moved} plots to links`);
const named = await plots.refreshSortNames();
if (named) console.log(`gave ${named} plots the name key the library sorts on (accents dropped, numbers by value)`);
// Token names were claimed in `token_names` until a claim a crash left could be taken over (services/users.ts).
await store.db.dropCollection('token_names');
const sweptUploads = await sweepUploadTmp(path.join(config.dataDir, 'tmp'));
if (sweptUploads) console.log(`removed ${sweptUploads} temporary upload files left by an earlier process`);

const server = app.listen(config.port, config.host);
configureTimeouts(server);
await once(server, 'listening');
console.log(`WebPlotViz API listening on http://localhost:${config.port}`);

// In the background: the API serves meanwhile.
backfillThumbnails(plots, store.blobs).then(
  (drawn) => drawn && console.log(`drew the thumbnails of ${drawn} plots stored without one`),
  (err) => console.error('drawing the thumbnails of plots stored without one stopped:', err),
);
store.blobs.listOlderPlots().then(
  (listed) => listed && console.log(`listed the blob names of ${listed} plots stored before they were listed`),
  (err) => console.error('listing the blob names of older plots stopped (the next start-up goes on):', err),
);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    server.close();
    housekeeping.stop();
    await plots.removalsDone();
    await amqp.close();
    await store.client.close();
    process.exit(0);
  });
}
