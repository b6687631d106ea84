// The embedded FerretDB must answer _id lookups from an index (stack/ferretdb/idindex.go):
// its own _id index does not match the expression its queries use, and every
// read of a plot, session or blob chunk would otherwise scan its whole table.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';

let client: MongoClient;
before(async () => {
  if (!process.env.MONGODB_URI) throw new Error('run through `npm test`: MONGODB_URI must point at the test stack');
  client = await MongoClient.connect(process.env.MONGODB_URI);
});
after(() => client.close());

async function idLookupPlan(db: ReturnType<MongoClient['db']>, collection: string): Promise<string> {
  // EXPLAIN alone does not reload the schema; a real read does.
  await db.collection<{ _id: string }>(collection).findOne({ _id: 'doc-1' });
  const explained = await db.command({ explain: { find: collection, filter: { _id: 'doc-1' } } });
  return JSON.stringify(explained.queryPlanner);
}

test('a new collection answers _id lookups from an index within seconds', async () => {
  const db = client.db(`wpvtest_${randomBytes(6).toString('hex')}`);
  const docs = Array.from({ length: 500 }, (_, i) => ({ _id: `doc-${i}`, payload: 'x'.repeat(100) }));
  await db.collection<{ _id: string; payload: string }>('things').insertMany(docs);

  let plan = await idLookupPlan(db, 'things');
  for (let waited = 0; !plan.includes('USING INDEX') && waited < 10_000; waited += 250) {
    await sleep(250);
    plan = await idLookupPlan(db, 'things');
  }
  assert.match(plan, /SEARCH \S+ USING INDEX \S+_wpv_id/);
  assert.equal((await db.collection<{ _id: string }>('things').findOne({ _id: 'doc-1' }))?._id, 'doc-1');
  await db.dropDatabase();
});
