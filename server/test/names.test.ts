// Names of plots and jobs: typed ones are checked (NAME_MAX, no control characters), ones made up
// from a file name are clipped to fit, and file names keep their non-ASCII characters.
// No workers run here, so a submitted job stays queued.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { NAME_MAX } from '@wpv/schema';
import { Client, expectReply, signedIn, startServer, type TestServer } from './harness.ts';

const TEXT = '0 1 2 3 1\n1 2 3 4 2\n';
const FASTA = '>s1\nACGTACGTAC\n>s2\nACGTTCGTAC\n>s3\nTTGTACGTAA\n>s4\nACGAACGTAC\n';

let server: TestServer;
let owner: Client;
before(async () => {
  process.env.JOB_QUEUE_PREFIX = `wpvtest.names.${randomBytes(4).toString('hex')}`;
  server = await startServer();
  owner = await signedIn(server.url, 'nadia');
});
after(() => server.close());

function submitJob(fileName: string, fields: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  form.set('type', 'sequence-clustering');
  form.set('params', '{}');
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set('file', new Blob([FASTA]), fileName);
  return owner.request('POST', '/jobs', form);
}

test('a non-ASCII file name is kept as sent (UTF-8): plot name, original name, export and job name', async () => {
  const plot = await owner.uploaded('ü日 données.txt', TEXT);
  assert.equal(plot.name, 'ü日 données');
  assert.equal((await owner.json('GET', `/plots/${plot.id}`)).originalName, 'ü日 données.txt');
  const original = await owner.request('GET', `/plots/${plot.id}/export?format=original`);
  assert.equal(original.status, 200);
  assert.match(original.headers.get('content-disposition')!, /filename\*=UTF-8''%C3%BC%E6%97%A5%20donn%C3%A9es\.txt/);
  const { id } = await expectReply(await submitJob('séquences.fasta'), 202);
  const job = await owner.json('GET', `/jobs/${id}`);
  assert.equal(job.name, 'séquences.fasta');
  assert.equal(job.input.originalName, 'séquences.fasta');
});

test('a name made from a long file name is clipped to NAME_MAX, for plots and jobs', async () => {
  const long = `${'A'.repeat(5000)}.txt`;
  const plot = await owner.uploaded(long, TEXT);
  assert.equal(plot.name.length, NAME_MAX);
  assert.ok(plot.name.endsWith('…'));
  const { id } = await expectReply(await submitJob(`${'B'.repeat(5000)}.fasta`), 202);
  const job = await owner.json('GET', `/jobs/${id}`);
  assert.equal(job.name.length, NAME_MAX);
  assert.ok(job.name.startsWith('BBB') && job.name.endsWith('…'));
});

test('a title found in a file is a name like a file name: control characters dropped, clipped', async () => {
  // (A control character in a file name never arrives: busboy refuses it as a malformed part header.)
  const pviz = (title: string) =>
    `<?xml version="1.0"?><plotviz><plot><title>${title}</title></plot><clusters><cluster><key>1</key><label>a</label></cluster></clusters>` +
    '<points><point><key>0</key><clusterkey>1</clusterkey><location x="1" y="2" z="3"/></point></points></plotviz>';
  assert.equal((await owner.uploaded('titled.pviz', pviz('first line\n\tsecond'))).name, 'first line second');
  const long = await owner.uploaded('long.pviz', pviz('T'.repeat(1000)));
  assert.equal(long.name, `${'T'.repeat(NAME_MAX - 1)}…`);
});

test('a typed name with a control character is a 400 naming the field: upload, rename, job', async () => {
  for (const name of ['\u0000', 'line one\nline two', 'bell\u0007']) {
    await expectReply(await owner.upload('ok.txt', TEXT, { name }), 400, 'name');
    await expectReply(await submitJob('ok.fasta', { name }), 400, 'name');
  }
  const plot = await owner.uploaded('ok.txt', TEXT, { name: 'fine' });
  await expectReply(await owner.request('PATCH', `/plots/${plot.id}`, { name: 'nul\u0000' }), 400, 'name');
  assert.equal((await owner.json('GET', `/plots/${plot.id}`)).name, 'fine');
  // Letters of any script, and punctuation, are names like any other.
  assert.equal((await owner.json('PATCH', `/plots/${plot.id}`, { name: 'Ωmega – «x»' })).name, 'Ωmega – «x»');
});

test('a collection or token name with a control character is a 400 naming the field', async () => {
  await expectReply(await owner.request('POST', '/collections', { name: 'tab\there' }), 400, 'name');
  const collection = await owner.json('POST', '/collections', { name: 'fine' }, 201);
  await expectReply(await owner.request('PATCH', `/collections/${collection.id}`, { name: 'nul\u0000' }), 400, 'name');
  await expectReply(await owner.request('POST', '/auth/token', { username: 'nadia', password: 'correct horse battery', name: 'line\nbreak' }), 400, 'name');
  assert.equal(await server.store.tokens.countDocuments({ username: 'nadia' }), 0);
});

test('a cluster name with a control character is a 400 naming the field: rename and a new cluster', async () => {
  const plot = await owner.uploaded('clusters.txt', TEXT, { name: 'clustered' });
  const key = plot.clusters[0].key;
  await expectReply(await owner.request('PATCH', `/plots/${plot.id}`, { clusters: [{ key, label: 'two\nlines' }] }), 400, 'clusters.0.label');
  await expectReply(await owner.request('POST', `/plots/${plot.id}/clusters`, { label: 'esc\u001b[31m', points: [0] }), 400, 'label');
  assert.equal((await owner.json('GET', `/plots/${plot.id}`)).clusters.length, plot.clusters.length, 'no cluster made');
  assert.equal((await owner.json('PATCH', `/plots/${plot.id}`, { clusters: [{ key, label: 'Ωmega «x»' }] })).clusters[0].label, 'Ωmega «x»');
});
