// The per-process answer cache in front of the store (plot lookups, blob versions, sessions).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';
import { Recent } from '../src/storage/recent.ts';

/** A store whose answers arrive when the test says so. */
function slowStore() {
  const asked: ((value: number | null) => void)[] = [];
  return {
    asked,
    load: () => new Promise<number | null>((resolve) => asked.push(resolve)),
    answer: (value: number | null) => asked.at(-1)!(value),
  };
}

/** The promise's value if it has settled by the next turn of the event loop, else 'waiting'. */
const now = <T>(promise: Promise<T>) => Promise.race([promise, new Promise<'waiting'>((resolve) => setImmediate(() => resolve('waiting')))]);

beforeEach(() => mock.timers.enable({ apis: ['Date'], now: 0 }));
afterEach(() => mock.timers.reset());

test('a key read late in its lifetime is refreshed in the background: its readers never wait on the store', async () => {
  const recent = new Recent<number>(1000);
  const store = slowStore();
  const first = recent.get('plot', store.load);
  assert.equal(await now(first), 'waiting'); // nothing remembered yet: the first reader waits
  store.answer(1);
  assert.equal(await first, 1);

  mock.timers.setTime(400);
  assert.equal(await now(recent.get('plot', store.load)), 1);
  assert.equal(store.asked.length, 1, 'young answers are served without asking');

  mock.timers.setTime(600); // second half of the lifetime: answered at once, asked again behind it
  assert.equal(await now(recent.get('plot', store.load)), 1);
  assert.equal(await now(recent.get('plot', store.load)), 1);
  assert.equal(store.asked.length, 2, 'one refresh for any number of readers');

  mock.timers.setTime(1100); // expired before the refresh landed: readers share the refresh, no third query
  const late = [recent.get('plot', store.load), recent.get('plot', store.load)];
  assert.equal(store.asked.length, 2);
  store.answer(2);
  assert.deepEqual(await Promise.all(late), [2, 2]);

  mock.timers.setTime(1550); // the refreshed answer lives from when the store was asked (600), not from when it landed
  assert.equal(await now(recent.get('plot', store.load)), 2);
  mock.timers.setTime(1650);
  assert.equal(await now(recent.get('plot', store.load)), 'waiting');
});

test('a refresh that lands after a writer forgot the key is not kept; a vanished key is dropped', async () => {
  const recent = new Recent<number>(1000);
  const store = slowStore();
  const first = recent.get('plot', store.load);
  store.answer(1);
  await first;
  mock.timers.setTime(700);
  await recent.get('plot', store.load); // starts a refresh
  recent.delete('plot'); // e.g. the plot was made private in this process
  store.answer(1); // the refresh's answer may predate the write
  await new Promise((resolve) => setImmediate(resolve));
  const afterWrite = recent.get('plot', store.load);
  assert.equal(store.asked.length, 3, 'the store is asked again after the write');
  store.answer(5);
  assert.equal(await afterWrite, 5);

  mock.timers.setTime(1400); // refresh answers "gone": the next reader asks the store
  await recent.get('plot', store.load);
  store.answer(null);
  await new Promise((resolve) => setImmediate(resolve));
  mock.timers.setTime(1450);
  const again = recent.get('plot', store.load);
  assert.equal(store.asked.length, 5);
  store.answer(6);
  assert.equal(await again, 6);
});
