/**
 * The floor each row is measured against: the same HTTP framework (Fastify, logger off) answering, with no
 * gates, no database and no serialisation, exactly the bytes the service answered for that row, held as one
 * buffer (the cheapest way to send them: no per-request encoding, as the answer cache sends). bench/run.ts
 * captures the service's answer (status, content type, body) and sets it here with `PUT /answer` before the
 * row; `/bare` then answers it to any method (a JSON request body is parsed, as the service parses it).
 *
 * With `BARE_REQUEST_LOG=1` the same route writes the service's request log line (its logger at the default
 * level to standard output, its log controller and request ids): the floor of a service that logs each
 * request as `npm start` does, with nothing else of the service.
 * `PORT=… [BARE_REQUEST_LOG=1] node --import tsx bench/bare-server.ts`.
 */
import Fastify from 'fastify';
import pino from 'pino';
import { requestLogging } from '../src/http/access-log.ts';

interface Answer {
  status: number;
  type: string;
  body: string;
}

const logged = process.env.BARE_REQUEST_LOG === '1';
const app = Fastify({
  bodyLimit: 64 * 1024 * 1024,
  // As src/cli/operator/runtime.ts makes the service's logger for `serve`.
  ...(logged ? { loggerInstance: pino({ level: 'info' }, pino.destination(1)), ...requestLogging() } : {}),
});
let answer: Answer = { status: 200, type: 'application/json; charset=utf-8', body: '{"data":[]}' };
let bytes = Buffer.from(answer.body, 'utf8');
app.put('/answer', async (request) => {
  answer = request.body as Answer;
  bytes = Buffer.from(answer.body, 'utf8');
  return { bytes: bytes.length };
});
app.all('/bare', async (_request, reply) =>
  answer.status === 304 ? reply.code(304).send() : reply.code(answer.status).type(answer.type).send(bytes),
);
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stderr.write(`listening ${app.server.address() && JSON.stringify(app.server.address())}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
