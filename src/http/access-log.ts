/**
 * The request log: one line per answered request at `info` (method, URL, status, client address, time in
 * the server in ms, with the request id), and its arrival at `debug` only. Fastify's default writes two
 * `info` lines per request with its full serialisers, measured at a quarter of the CPU a cached lookup
 * costs; its other log lines (errors, stream errors, …) are kept as they are.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

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
