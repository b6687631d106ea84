// Starts a pipeline worker: consumes "advance job X" messages (prefetch 1), runs the
// worker stages (vector distances, plot assembly), fails jobs whose messages were
// dead-lettered, and sweeps idle active jobs so that a lost message never leaves a
// job hanging. Several workers may run side by side.
import { writeFile } from 'node:fs/promises';
import { loadConfig } from '@wpv/server/config';
import { JobBroker } from '@wpv/jobs/broker';
import { loadJobConfig } from '@wpv/jobs/config';
import { JobRepo } from '@wpv/jobs/repository';
import { endpointOf, retrying } from '@wpv/jobs/retry';
import { StageTimings } from '@wpv/jobs/timings';
import { Plots } from '@wpv/server/services/plots';
import { openStore } from '@wpv/server/storage/db';
import { isStoreUnreachable } from '@wpv/server/storage/reachability';
import { assembleStage } from './assemble.ts';
import { distancesStage } from './distances.ts';
import { Orchestrator } from './orchestrator.ts';
import { Sweeper } from './sweeper.ts';

const config = loadConfig();
const jobConfig = loadJobConfig(config.dataDir);
// Started before the store or the broker is up (boot order, a restart of either): wait for them.
const log = (line: string) => console.log(`workers: ${line}`);
const store = await retrying(`the store at ${endpointOf(config.mongodbUri)}`, () => openStore(config.mongodbUri), log);
const repo = new JobRepo(store);
const plots = new Plots(store, config.limits);
// A store outage is waited out with the message kept: it delays jobs, it must not fail them.
const broker = new JobBroker(config.amqpUrl, jobConfig.queuePrefix, log, isStoreUnreachable);
await broker.waitForConnection();
const orchestrator = new Orchestrator(repo, broker, jobConfig, {
  distances: distancesStage,
  assemble: assembleStage(plots),
}, new StageTimings(store.jobTimings));
const sweeper = new Sweeper(repo, broker);

await broker.consume('pipeline', (message, delivery) => orchestrator.advance(message, delivery));
await broker.consume('dead', (message, delivery) => sweeper.deadLettered(message, delivery));
sweeper.start();
await writeFile(process.env.READY_FILE || '/tmp/workers.ready', `${process.pid}\n`);
console.log('workers: consuming the pipeline queue');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    sweeper.stop();
    await broker.close();
    await store.client.close();
    process.exit(0);
  });
}
