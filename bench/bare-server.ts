/**
 * The floor the service is measured against: the same HTTP framework (Fastify, logger off, as
 * the service runs it in the benchmark) answering one JSON route with no gates, no database and
 * no schema. `PORT=… node --import tsx bench/bare-server.ts`.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const body = { data: [], meta: { count: 0, limit: 50, next_cursor: null, data_as_of: '2026-06-17' } };
app.get('/bare', async () => body);
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening ${app.server.address() && JSON.stringify(app.server.address())}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
