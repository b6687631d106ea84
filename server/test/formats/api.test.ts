// The formats' 4xx answers and the export through the real API (the test
// stack's FerretDB): what a client sees of issue 13's format defects.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Client, bytes, signedIn, startServer, type TestServer } from '../harness.ts';
import { tempPath } from './helpers.ts';

let server: TestServer;
let alice: Client;
before(async () => {
  server = await startServer();
  alice = await signedIn(server.url, 'alice');
});
after(() => server.close());

const plotCount = () => server.store.plots.countDocuments({});

async function rejected(name: string, content: string | Uint8Array<ArrayBuffer>, status: number, code: string) {
  const before = await plotCount();
  const res = await alice.upload(name, content);
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body).slice(0, 500));
  assert.equal(body.error.code, code);
  assert.equal(await plotCount(), before, 'nothing stored');
  return body.error;
}

test('CSV naming a column twice: 422 naming it, nothing stored', async () => {
  const error = await rejected('dup.csv', 'x,x,y\n1,2,3\n', 422, 'duplicate_csv_column');
  assert.equal(error.message, 'line 1: the header names x (columns 1, 2) more than once');
  assert.equal(error.line, 1);
});

test('UTF-16 text: 422 asking for UTF-8', async () => {
  const utf16 = new Uint8Array(Buffer.from('\ufeffx,y,label\n1,2,a\n', 'utf16le'));
  const error = await rejected('points.csv', utf16, 422, 'not_utf8');
  assert.equal(error.message, 'the file is UTF-16 (little-endian) text; save it as UTF-8');
});

test('a 10 MB bad value: the error quotes 200 characters of it', async () => {
  const error = await rejected('long.txt', `0 1 2 3 1\n1 ${'9'.repeat(5_000_000)}x${'9'.repeat(5_000_000)} 2 3 1\n`, 422, 'bad_number');
  assert.ok(error.message.length < 300, `a message of ${error.message.length} characters`);
  assert.equal(error.line, 2);
});

test("labels with NUL, ESC and other controls: the PlotViz export parses in Python's xml.etree", async () => {
  const text = '0 1 2 3 1 nul\u0000 esc\u001b bell\u0007 ok\n1 4 5 6 1 \u000bplain\u000c \u{1f600}\n';
  const res = await alice.upload('controls.txt', text);
  const plot = await res.json();
  assert.equal(res.status, 201, JSON.stringify(plot));
  const exported = await alice.request('GET', `/plots/${plot.id}/export?format=pviz`);
  assert.equal(exported.status, 200);
  const path = tempPath('controls.pviz');
  writeFileSync(path, await bytes(exported));
  const labels = execFileSync(
    'python3',
    ['-c', "import sys, json, xml.etree.ElementTree as E\nprint(json.dumps([p.findtext('label') for p in E.parse(sys.argv[1]).iter('point')]))", path],
    { encoding: 'utf8' },
  );
  assert.deepEqual(JSON.parse(labels), ['nul esc bell ok', 'plain \u{1f600}']);
});
