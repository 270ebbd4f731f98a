/** GET /v1/identifiers/{kind}/{value}: recalls holding one identifier, in any of its printed forms. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IDENTIFIER_KINDS, parseKind } from '../../domain/identifiers/kinds.ts';
import { Ref, StringEnum } from '../../domain/json-schema.ts';
import { lookupKeys } from '../../domain/identifiers/match-keys.ts';
import { normaliseIdentifier } from '../../domain/identifiers/normalise.ts';
import { Walk } from '../paging.ts';
import { invalidParameter } from '../problems.ts';
import { jsonArray, sendRendered } from '../rendered-answer.ts';
import { corpusVersionOf, type RouteContext } from '../route-context.ts';
import { CursorSchema, pageEnvelope, KEYED_ERRORS, LimitSchema, RecallMatchSchema } from '../schemas.ts';

/** The example is a barcode of the fictional sample records (`recalls demo`), so trying it in /docs finds them. */
const Value = Type.String({
  description: 'The identifier as printed on the product or in the catalogue; normalised as at ingestion',
  examples: ['0 12345 67890 5'],
});
const KIND = `Identifier kind: ${IDENTIFIER_KINDS.join(', ')} (also accepted in any case)`;
/** Any string: an unknown kind is a 400 naming the kinds, and a kind is taken in any case (`UPC` is `upc`). */
const Params = Type.Object({ kind: Type.String({ description: KIND }), value: Value });
/** As documented: one of the kinds, so that a client's typo does not compile. */
const DocumentedParams = Type.Object({
  kind: StringEnum(IDENTIFIER_KINDS, { description: KIND, examples: ['upc'] }),
  value: Value,
});
const Query = Type.Object({ limit: Type.Optional(LimitSchema), cursor: Type.Optional(CursorSchema) });

export const identifierRoutes: FastifyPluginAsyncTypebox<RouteContext> = async (app, { deps, catalog }) => {
  app.get(
    '/identifiers/:kind/:value',
    {
      schema: {
        operationId: 'lookupByIdentifier',
        summary: 'Recalls holding one identifier',
        description:
          'GTIN, UPC and EAN share one key space (GTIN-14), lot and batch share one, a product NDC matches its packages. ' +
          'A model or lot also matches a stored match rule of its family that holds it (a prefix `STEM*` or a range `FROM..TO`, see `match`). ' +
          'A value that cannot be normalised gives 400 (`parameter: value`); a valid value that matches nothing gives `data: []`.',
        tags: ['identifiers'],
        params: Params,
        querystring: Query,
        response: {
          200: pageEnvelope(
            Ref(RecallMatchSchema),
            'A page of the recalls holding the identifier, each with the stored identifier that matched (empty when none)',
          ),
          ...KEYED_ERRORS,
        },
      },
      config: { access: 'key', etag: 'corpus', openapi: { params: DocumentedParams } },
    },
    async (request, reply) => {
      const { kind: rawKind, value } = request.params;
      const q = request.query;
      const kind = parseKind(rawKind);
      if (kind === undefined) {
        throw invalidParameter(
          'kind',
          `Unknown identifier kind "${rawKind}". Kinds: ${IDENTIFIER_KINDS.join(', ')}.`,
        );
      }
      const normalised = normaliseIdentifier(kind, value);
      if (!normalised.ok)
        throw invalidParameter(
          'value',
          `Cannot normalise ${kind} "${value}": ${normalised.detail} (${normalised.reason}).`,
        );
      const walk = new Walk(deps.store.cursorSecret, 'identifiers', {
        kind: normalised.kind,
        normalized: normalised.normalized,
      });
      const after = walk.recallPosition(q.cursor);
      const limit = q.limit ?? 50;
      const page = await deps.store.identifiers.lookup(
        lookupKeys(normalised.kind, normalised.normalized),
        limit,
        after,
      );
      const last = page.rows[page.rows.length - 1];
      const attribution = catalog.attribution(page.rows.map((r) => r.sourceId));
      return sendRendered(reply, jsonArray(page.rows), {
        count: page.rows.length,
        limit,
        next_cursor: walk.next(
          page.more,
          last === undefined ? undefined : [last.position.sortDate, last.position.id],
        ),
        data_as_of: await catalog.dataAsOf(undefined, await corpusVersionOf(request, deps.store)),
        ...(attribution.length > 0 ? { attribution } : {}),
      });
    },
  );
};
