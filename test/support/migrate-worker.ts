/**
 * A worker thread that opens the SQLite store at `workerData.path` (migrating it) once every worker of its
 * round is ready: `workerData.ready` counts them (Int32Array on a SharedArrayBuffer), so they start together.
 * Posts `{ applied }` (how many migrations this one applied) or `{ error }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { migrate } from '../../src/store/database.ts';
import { openSqlite } from '../../src/store/engines/sqlite.ts';

const { path, ready, together } = workerData as { path: string; ready: Int32Array; together: number };
Atomics.add(ready, 0, 1);
Atomics.notify(ready, 0);
while (Atomics.load(ready, 0) < together) Atomics.wait(ready, 0, Atomics.load(ready, 0), 1000);
const engine = openSqlite(path);
try {
  const applied = await migrate(engine);
  await engine.ready();
  parentPort!.postMessage({ applied: applied.length });
} catch (error) {
  parentPort!.postMessage({ error: String((error as Error).cause ?? error) });
} finally {
  await engine.close();
}
