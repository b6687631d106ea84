// A cancel's stop request reaches every running stage (real store): an MPI stage asked to stop can no
// longer be recorded succeeded or failed by the bridge, only cancelled, as the workers' stages;
// and stock-timeseries' prepare stage stops at its signal, writing none of its outputs.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { JobRepo, stopReason } from '@wpv/jobs/repository';
import { JOB_MODULES } from '../../src/jobtypes/index.ts';
import { Gateway, signedIn, submit } from './gateway.ts';

describe('a cancel while MPI stages run', () => {
  let gw: Gateway;
  before(async () => {
    gw = await Gateway.start({ workers: 0, bridge: false }); // nothing moves the job but the test
  });
  after(async () => gw?.close());

  test('asks them to stop: an end the bridge records after the cancel is refused, the cancelled one is not', async () => {
    const client = await signedIn(gw.url);
    const { id } = await (await submit(client, 'distance-matrix', 'd.bin', new Uint8Array(2 * 3 * 3), { points: 3 })).json();
    const repo = new JobRepo(gw.store);
    assert.ok(await repo.moveJob(id, 'running', 'test'));
    for (const name of ['mds', 'pwc']) {
      assert.ok(await repo.moveStage(id, name, 'queued', 'test'));
      assert.ok(await repo.moveStage(id, name, 'running', 'test', { startedAt: new Date(), attempts: 1 }));
    }
    // The bridge looked at the job (still running) just before the cancel, then saw the program end.
    assert.deepEqual(await repo.cancel(id, 'cancelled by the test'), { cancelled: true });
    const now = await repo.states(id, 'mds');
    assert.equal(now.stopping, true);
    assert.equal(stopReason(now), 'job cancelled');
    assert.equal(await repo.moveStage(id, 'mds', 'succeeded', 'exited 0', { endedAt: new Date() }), false, 'no success after the cancel');
    assert.equal(await repo.moveStage(id, 'pwc', 'failed', 'exited 1', { endedAt: new Date() }), false);
    assert.equal(await repo.moveStage(id, 'pwc', 'pending', 'lost; retry', {}), false, 'no retry either');
    for (const name of ['mds', 'pwc']) assert.ok(await repo.moveStage(id, name, 'cancelled', 'job cancelled; stopped', { endedAt: new Date() }), name);
    const job = await client.json('GET', `/jobs/${id}`);
    assert.deepEqual(job.stages.map((s: any) => s.state), ['cancelled', 'cancelled', 'cancelled']);
    assert.deepEqual(job.history.filter((h: any) => h.to === 'succeeded'), []);
  });
});

describe("stock-timeseries' prepare stage", () => {
  test('stopped by its signal writes none of its outputs', async () => {
    const dir = mkdtempSync(path.join(process.env.WPV_TEST_DIR ?? '/tmp', 'prepare-stop-'));
    try {
      writeFileSync(path.join(dir, 'market.json'), JSON.stringify({ symbols: ['AAA'], sectors: [null], days: [0], hasVolume: false }));
      writeFileSync(path.join(dir, 'observations.bin'), new Uint8Array(0));
      const job = { workdir: dir, params: { referenceStocks: false, weights: 'equal' } } as any;
      const prepare = JOB_MODULES['stock-timeseries'].workerStages!.prepare!;
      await assert.rejects(prepare(job, AbortSignal.abort(new Error('stopped: job cancelled'))), /job cancelled/);
      assert.deepEqual(readdirSync(dir).sort(), ['market.json', 'observations.bin']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
