/**
 * What HTTP itself refuses, as problem documents too: parser errors (oversized request line or headers,
 * broken syntax), HTTP/1.1 without Host, an expectation other than 100-continue; a request still arriving at
 * the request timeout has its connection closed (no documented problem type is a 408). Each answer carries
 * its request id as `X-Request-Id`, as every answer of the service does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import fp from 'fastify-plugin';
import { PROBLEM_CONTENT_TYPE } from './error-handler.ts';
import { invalidParameter, type ProblemError } from './problems.ts';

/** Headers of a request must have arrived within this long (and within the request timeout). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** How often Node checks the connections for a request past either timeout. */
export const TIMEOUT_CHECK_MS = 1_000;

/** The request path of a request line, when it can be read from the raw bytes. */
function pathOf(target: string | undefined): string | undefined {
  if (target === undefined || !target.startsWith('/')) return undefined;
  const path = target.split('?')[0]!;
  return path.length > 512 ? `${path.slice(0, 509)}...` : path;
}

function problemBody(problem: ProblemError, instance: string | undefined): string {
  const body = problem.toProblem(instance ?? '');
  if (instance === undefined) delete body.instance;
  return JSON.stringify(body);
}

/**
 * Answers a request the HTTP parser refused on its socket, with a request id of `newRequestId` (its
 * headers are not read), or closes the socket of a timed-out one.
 */
export function answerClientError(
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
  newRequestId: () => string,
): void {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW' || error.code === 'HPE_URI_TOO_LONG';
  const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined;
  const requestLine = raw?.subarray(0, 8192).toString('latin1').split('\r\n', 1)[0];
  const body = problemBody(
    invalidParameter(
      'request',
      tooLarge ? 'The request line or headers are too large.' : 'The request is not valid HTTP.',
    ),
    pathOf(requestLine?.split(' ')[1]),
  );
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${newRequestId()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Answers a request whose Expect header names anything but 100-continue, which Node would answer with a bare 417. */
function refuseExpectation(request: IncomingMessage, response: ServerResponse, requestId: string): void {
  const body = problemBody(
    invalidParameter('Expect', 'The only expectation supported is "Expect: 100-continue".'),
    pathOf(request.url),
  );
  response.writeHead(400, {
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
    Connection: 'close',
  });
  response.end(body);
}

/** Refuses an HTTP/1.1 request without Host (which Node would answer with a bare 400) and unmet expectations. */
export const protocolRules = fp<{ requestId: (request: IncomingMessage) => string }>(
  async (app, { requestId }) => {
    app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
      refuseExpectation(request, response, requestId(request)),
    );
    app.addHook('onRequest', (request, _reply, done) => {
      if (request.headers.host === undefined && request.raw.httpVersion === '1.1')
        return done(invalidParameter('Host', 'An HTTP/1.1 request must carry a Host header.'));
      done();
    });
  },
  { name: 'protocol-rules' },
);
