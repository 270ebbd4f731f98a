/**
 * Shutdown without lingering: a keep-alive connection answering when closing starts would stay open for the
 * keep-alive timeout (72 s) after its answer, so once closing, answers end their connection.
 */
import fp from 'fastify-plugin';

/** Ends each connection with its in-flight answer once the server is closing. */
export const closeAfterAnswer = fp(
  async (app) => {
    let closing = false;
    app.addHook('preClose', (done) => {
      closing = true;
      done();
    });
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('Connection', 'close');
      done(null, payload);
    });
    app.addHook('onResponse', (_request, _reply, done) => {
      if (closing) app.server.closeIdleConnections();
      done();
    });
  },
  { name: 'close-after-answer' },
);
