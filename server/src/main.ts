// Starts the API server: store, broker link, HTTP; stops cleanly on SIGTERM/SIGINT.
import { once } from 'node:events';
import os from 'node:os';
import { createApp } from './app.ts';
import { loadConfig } from './config.ts';
import { AmqpLink } from './storage/amqp.ts';
import { openStore } from './storage/db.ts';

if (os.endianness() !== 'LE') throw new Error('WebPlotViz serves little-endian binary data and needs a little-endian host');

const config = loadConfig();
const store = await openStore(config.mongodbUri);
const amqp = new AmqpLink(config.amqpUrl);
await amqp.start();
const { app, plots } = createApp({ config, store, amqp });
const swept = await plots.sweepAbandoned(10 * 60_000);
if (swept) console.log(`removed ${swept} plots left half-written by an earlier crash`);

const server = app.listen(config.port, config.host);
// Large uploads on slow links outlast Node's 5-minute default; the size cap bounds them instead.
server.requestTimeout = 60 * 60_000;
// Idle keep-alive sockets outlive a client's pause (and a proxy's idle timeout) instead
// of being closed just as the client reuses them.
server.keepAliveTimeout = 65_000;
await once(server, 'listening');
console.log(`WebPlotViz API listening on http://localhost:${config.port}`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    server.close();
    await amqp.close();
    await store.client.close();
    process.exit(0);
  });
}
