/**
 * The request log: one line per answered request at `info` (method, URL, status, client address, time in
 * the server in ms, with the request id), and its arrival at `debug` only. Fastify's default writes two
 * `info` lines per request with its full serialisers, measured at a quarter of the CPU a cached lookup
 * costs; its other log lines (errors, stream errors, …) are kept as they are.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
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
 * The Fastify options of the request log: its one line per request and the request ids it carries (never
 * taken from a request header). The benchmark's logged bare route uses the same, so that its floor is the
 * service's own log line.
 */
export function requestLogging() {
  return { logController: new AccessLog(), genReqId: requestIds(), requestIdHeader: false as const };
}
