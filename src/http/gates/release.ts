/** Gate 5, release: 2xx keeps its reservation and records deferred usage; else (or refunded) returns it. */
import fp from 'fastify-plugin';
import { isNothing } from '../../domain/meters.ts';
import type { AppDeps } from '../context.ts';
import { UsageRecorder } from '../usage-recorder.ts';

/** Settles every request's quota hold once it has been answered; deferred usage is written on close too. */
export const releaseGate = fp<{ deps: AppDeps }>(
  async (app, { deps }) => {
    const usage = new UsageRecorder(deps.store, (err) => app.log.error({ err }, 'usage recording failed'));
    app.addHook('onClose', () => usage.flush());
    app.addHook('onResponse', (request, reply, done) => {
      const hold = request.quotaHold;
      if (hold === undefined) return done();
      const answered = reply.statusCode >= 200 && reply.statusCode < 300 && !hold.refund;
      if (answered && !isNothing(hold.deferred)) usage.record(hold.keyId, hold.month, hold.deferred);
      if (answered || isNothing(hold.reserved)) return done();
      deps.store.usage
        .release(hold.keyId, hold.month, hold.reserved)
        .catch((err: unknown) => request.log.error({ err }, 'quota release failed'))
        .finally(() => done());
    });
  },
  { name: 'release-gate', dependencies: ['quota-gate'] },
);
