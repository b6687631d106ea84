// Errors name the input at fault but quote at most 200 characters of it: a
// 10 MB line gives a short error, not a 10 MB one.
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { test } from 'node:test';
import yazl from 'yazl';
import { parseFile } from '../../src/formats/index.ts';
import { LIMITS, assertInputError, tempPath, writeTemp } from './helpers.ts';

const HUGE = 'q'.repeat(10_000_000);

async function assertShort(name: string, content: string, code: string): Promise<void> {
  const error = await assertInputError(parseFile(writeTemp(name, content), name, LIMITS), { code });
  assert.ok(error.message.length <= 500, `${name} ${code}: a message of ${error.message.length} characters`);
  assert.match(error.message, /q{150,200}…/, 'the start of the input is shown');
}

test('text, CSV and PlotViz errors quote at most 200 characters of a 10 MB value', async () => {
  await assertShort('a.txt', `0 ${HUGE} 1\n`, 'bad_number');
  await assertShort('a.txt', `0 1 2 ${HUGE}\n`, 'bad_cluster_key');
  await assertShort('a.csv', `x,y,cluster\n1,2,3\n1,2,${HUGE}\n`, 'bad_cluster_key');
  await assertShort('a.txt', `${HUGE} 0 0 0 0 a\n${HUGE} 0 0 0 0 b\n`, 'duplicate_point_key');
  await assertShort('a.pviz', `<plotviz><points><point><key>${HUGE}</key></point></points></plotviz>`, 'missing_field');
  await assertShort('a.pviz', `<plotviz><points><point><location x="${HUGE}" y="0"/></point></points></plotviz>`, 'bad_number');
  await assertShort('a.pviz', `<plotviz><${HUGE}></other></plotviz>`, 'malformed_xml');
  await assertShort('a.pviz', `<${HUGE}/>`, 'not_pviz');
  await assertShort('a.pviz', `<plotviz><plot><title>&${HUGE};</title></plot></plotviz>`, 'malformed_xml');
});

test('a ZIP index naming a missing 1 MB entry name gives a short error', async () => {
  const path = tempPath('series.zip');
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from('0 0 0\n'), 'f.txt');
  zip.addBuffer(Buffer.from(`${HUGE.slice(0, 1_000_000)}\n`), 'plot.index');
  zip.end();
  await finished(zip.outputStream.pipe(createWriteStream(path)));
  const error = await assertInputError(parseFile(path, 'series.zip', LIMITS), { code: 'bad_index', line: 1 });
  assert.ok(error.message.length <= 500, `a message of ${error.message.length} characters`);
});
