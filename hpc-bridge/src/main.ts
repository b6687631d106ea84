// Starts the hpc-bridge: store, broker, the configured backend (HPC_BACKEND=local|slurm).
// Stopping it leaves running programs alone: the next start re-attaches to them.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '@wpv/server/config';
import { JobBroker } from '@wpv/jobs/broker';
import { loadJobConfig } from '@wpv/jobs/config';
import { JobRepo } from '@wpv/jobs/repository';
import { endpointOf, retrying } from '@wpv/jobs/retry';
import { openStore } from '@wpv/server/storage/db';
import { isStoreUnreachable } from '@wpv/server/storage/reachability';
import { LocalBackend } from './backends/local.ts';
import { SlurmBackend } from './backends/slurm.ts';
import { Bridge } from './bridge.ts';

const config = loadConfig();
const jobConfig = loadJobConfig(config.dataDir);
// Started before the store or the broker is up (boot order, a restart of either): wait for them.
const log = (line: string) => console.log(`hpc-bridge: ${line}`);
const store = await retrying(`the store at ${endpointOf(config.mongodbUri)}`, () => openStore(config.mongodbUri), log);
// A store outage is waited out with the message kept: it delays jobs, it must not fail them.
const broker = new JobBroker(config.amqpUrl, jobConfig.queuePrefix, log, isStoreUnreachable);
await broker.waitForConnection();
const backend =
  jobConfig.backend === 'slurm'
    ? new SlurmBackend(jobConfig.slurmArgs)
    : new LocalBackend(jobConfig.localSlots, path.join(jobConfig.jobsDir, '.slots'));
const bridge = new Bridge(new JobRepo(store), broker, backend, jobConfig);
await bridge.start();
await writeFile(process.env.READY_FILE || '/tmp/hpc-bridge.ready', `${process.pid}\n`);
console.log(`hpc-bridge: ${backend.kind} backend, polling every ${jobConfig.pollMs} ms`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    await bridge.stop();
    await broker.close();
    await store.client.close();
    process.exit(0);
  });
}
