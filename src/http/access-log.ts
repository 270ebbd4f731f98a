/**
 * The request log: one line per answered request at `info` (method, URL, status, client address, time in
 * the server in ms, with the request id, which every answer carries as `X-Request-Id`), and its arrival at
 * `debug` only. Fastify's default writes two `info` lines per request with its full serialisers, measured
 * at a quarter of the CPU a cached lookup costs; its other log lines (errors, stream errors, …) are kept as
 * they are.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { randomBase62 } from '../domain/api-keys.ts';

export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: request.url }, 'request received');
  }

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      remoteAddress: request.ip,
      responseTime: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/** Request ids `req_` + 16 base62: 8 random per process, then a counter (no random bytes per request). */
function requestIds(): () => string {
  const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const prefix = `req_${randomBase62(8)}`;
  let n = 0;
  return () => {
    let x = n++;
    let tail = '';
    for (let i = 0; i < 8; i++) {
      tail = ALPHABET[x % 62]! + tail;
      x = Math.floor(x / 62);
    }
    return prefix + tail;
  };
}

/**
 * An `X-Request-Id` a client may choose and have kept: 1–128 of `[A-Za-z0-9._:-]`, not starting `req_`, the
 * service's own ids (a client repeating one of them would give two log lines one id).
 */
const CLIENT_REQUEST_ID = /^(?!req_)[A-Za-z0-9._:-]{1,128}$/;

/** The request's sane `X-Request-Id` (a repeated one, which Node joins with `, `, is not), else the next own id. */
function requestIdOf(request: { headers: IncomingHttpHeaders }, next: () => string): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent) ? sent : next();
}

/** One server's request ids: `of` a request (its sane `X-Request-Id`, else the next own id), `next` own id. */
export interface RequestIds {
  of(request: { headers: IncomingHttpHeaders }): string;
  next(): string;
}

/** A server's request ids: a client's sane `X-Request-Id`, else the service's own (`req_` + 16 base62). */
export function requestIdSource(): RequestIds {
  const next = requestIds();
  return { of: (request) => requestIdOf(request, next), next };
}

/**
 * The Fastify options of the request log: its one line per request and the request ids it carries (a
 * client's sane `X-Request-Id`, else the service's own). The benchmark's logged bare route uses the same,
 * so that its floor is the service's own log line.
 */
export function requestLogging(ids: RequestIds = requestIdSource()) {
  return { logController: new AccessLog(), genReqId: ids.of, requestIdHeader: false as const };
}

/** Sends each answer's request id back as `X-Request-Id`: errors, 304s and answers from the cache too. */
export const requestIdHeader = fp(
  async (app) => {
    app.addHook('onSend', (request, reply, payload, done) => {
      reply.header('X-Request-Id', request.id);
      done(null, payload);
    });
  },
  { name: 'request-id-header' },
);
