// Manual use: node bench/viewer/serve.mjs [port] — the built client over the mock API.
import path from 'node:path';
import { startMockServer } from './mockApi.mjs';
const root = path.resolve(import.meta.dirname, '../..');
const server = await startMockServer([path.join(root, 'client/dist'), import.meta.dirname], Number(process.argv[2] ?? 8094));
console.log(`http://127.0.0.1:${server.address().port}/plots/points-100000`);
