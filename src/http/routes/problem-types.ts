/**
 * GET /problems/{type}: the page each problem type URI names (RFC 9457 says a type URI should lead to a
 * description for people), as JSON or, when the client prefers it, HTML. Outside `/v1` and the OpenAPI document.
 */
import type { FastifyPluginAsync } from 'fastify';
import { PROBLEM_TYPES, ProblemError, type ProblemKind } from '../problems.ts';

/** Whether the client prefers HTML to JSON, by the Accept header's q-values (a browser does; curl's *\/* does not). */
function prefersHtml(accept: string | undefined): boolean {
  let html = 0;
  let json = 0;
  for (const range of (accept ?? '').toLowerCase().split(',')) {
    const [type, ...params] = range.split(';').map((p) => p.trim());
    const q = Number(params.find((p) => p.startsWith('q='))?.slice(2) ?? '1');
    if (!Number.isFinite(q)) continue;
    if (type === 'text/html') html = Math.max(html, q);
    else if (type === 'application/json' || type === 'application/problem+json') json = Math.max(json, q);
  }
  return html > json;
}

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/`([^`]+)`/g, '<code>$1</code>');

/** A short HTML page for one problem type. */
function page(kind: ProblemKind): string {
  const t = PROBLEM_TYPES[kind];
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(t.title)}</title></head>` +
    `<body><h1>${t.status} ${escape(t.title)}</h1><p><code>${t.type}</code></p><p>${escape(t.about)}</p>` +
    '<p>Every error of this API is an RFC 9457 problem document: see <a href="/docs">the API reference</a>.</p>' +
    '</body></html>\n'
  );
}

export const problemTypeRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { type: string } }>(
    '/problems/:type',
    { schema: { hide: true }, config: { access: 'public', etag: 'body' } },
    async (request, reply) => {
      const kind = request.params.type as ProblemKind;
      if (!Object.hasOwn(PROBLEM_TYPES, kind))
        throw new ProblemError('not-found', `No problem type "${request.params.type.slice(0, 64)}".`);
      const t = PROBLEM_TYPES[kind];
      reply.header('Vary', 'Accept');
      if (prefersHtml(request.headers.accept)) return reply.type('text/html; charset=utf-8').send(page(kind));
      return { type: t.type, title: t.title, status: t.status, description: t.about };
    },
  );
};
