/**
 * Answers made the way the service made them before it rendered each recall once: recalls and revisions read
 * as objects from their columns (not from the stored rendering) and serialised by Fastify with the routes'
 * response schemas. A test compares them byte for byte with what the service now assembles.
 */
import type { TSchema } from 'typebox';
import { Ref } from '../../src/domain/json-schema.ts';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from '../../src/config.ts';
import type { Recall, RecallSummary, Revision } from '../../src/domain/recall.ts';
import {
  envelope,
  pageEnvelope,
  RecallMatchSchema,
  RecallSchema,
  RecallSummarySchema,
  RevisionSchema,
  SHARED_SCHEMAS,
} from '../../src/http/schemas.ts';
import type { Engine } from '../../src/store/engine.ts';
import { openRawEngine } from './database.ts';

/** The response schemas of the routes compared, as the routes declare them. */
const SHAPES = {
  list: pageEnvelope(Ref(RecallSummarySchema), 'list'),
  one: envelope(Ref(RecallSchema), 'one'),
  matches: pageEnvelope(Ref(RecallMatchSchema), 'matches'),
  revisions: pageEnvelope(Ref(RevisionSchema), 'revisions'),
} satisfies Record<string, TSchema>;

/** Which route's answer a body is. */
export type AnswerShape = keyof typeof SHAPES;

function list(json: string): string[] {
  return (JSON.parse(json) as unknown[]).map(String);
}

export class ObjectAnswers {
  private next: unknown;

  private constructor(
    private readonly engine: Engine,
    private readonly app: FastifyInstance,
  ) {}

  /** A second connection to the service's database and a Fastify instance with the service's schemas. */
  static async open(database: Config['database']): Promise<ObjectAnswers> {
    const app = Fastify({ logger: false });
    for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
    const answers = new ObjectAnswers(openRawEngine(database), app);
    for (const [shape, schema] of Object.entries(SHAPES))
      app.get(`/${shape}`, { schema: { response: { 200: schema } } }, async () => answers.next);
    await app.ready();
    return answers;
  }

  /** One recall read from its columns, with its identifiers from the identifiers table when asked. */
  async recall(id: string, withIdentifiers: boolean): Promise<RecallSummary | Recall> {
    const row = await this.engine.db
      .selectFrom('recalls as r')
      .innerJoin('sources as s', 's.id', 'r.source_id')
      .selectAll('r')
      .select(['s.agency', 's.data_as_of as source_data_as_of'])
      .where('r.id', '=', id)
      .executeTakeFirstOrThrow();
    const summary: RecallSummary = {
      id: row.id,
      source: {
        id: row.source_id,
        record_id: row.record_id,
        agency: row.agency,
        jurisdiction: row.jurisdiction,
      },
      title: row.title,
      summary: row.summary,
      hazard: { category: row.hazard_category, text: row.hazard_text },
      product: { category: row.product_category, brands: list(row.brands), models: list(row.models) },
      severity: row.severity,
      source_classification: row.source_classification,
      remedy: row.remedy,
      recall_date: row.recall_date,
      published_date: row.published_date,
      countries: list(row.countries),
      url: row.url,
      revision: row.revision,
      data_as_of: row.source_data_as_of ?? row.last_seen_at,
      first_seen_at: row.first_seen_at,
      last_seen_at: row.last_seen_at,
    };
    if (!withIdentifiers) return summary;
    const identifiers = await this.engine.db
      .selectFrom('identifiers')
      .select(['kind', 'value', 'normalized', 'confidence'])
      .where('recall_id', '=', id)
      .orderBy('kind')
      .orderBy('normalized')
      .orderBy('value')
      .execute();
    return { ...summary, identifiers };
  }

  /** Revisions of a recall read from their rows. */
  async revisions(id: string, numbers: readonly number[]): Promise<Revision[]> {
    const rows = await this.engine.db
      .selectFrom('revisions')
      .selectAll()
      .where('recall_id', '=', id)
      .orderBy('revision')
      .execute();
    return rows
      .filter((r) => numbers.includes(r.revision))
      .map((r) => ({
        revision: r.revision,
        observed_at: r.observed_at,
        changed_fields: JSON.parse(r.changed_fields) as Revision['changed_fields'],
        ...(r.data_as_of === null ? {} : { data_as_of: r.data_as_of }),
      }));
  }

  /** `answer` serialised by Fastify with the response schema of `shape`. */
  async serialise(shape: AnswerShape, answer: { data: unknown; meta: unknown }): Promise<string> {
    this.next = answer;
    const response = await this.app.inject({ method: 'GET', url: `/${shape}` });
    if (response.statusCode !== 200) throw new Error(`serialising ${shape}: ${response.body}`);
    return response.body;
  }

  /**
   * The object-serialised answer to the body the service served: the same recalls (or revisions), in the
   * same order, each read from its columns (a lookup's `match` and the `meta` taken as served).
   */
  async expected(shape: AnswerShape, served: string, recallId?: string): Promise<string> {
    const { data, meta } = JSON.parse(served) as { data: unknown; meta: unknown };
    let objects: unknown;
    if (shape === 'one') objects = await this.recall((data as { id: string }).id, true);
    else if (shape === 'revisions')
      objects = await this.revisions(
        recallId!,
        (data as Revision[]).map((r) => r.revision),
      );
    else
      objects = await Promise.all(
        (data as { id: string; match?: unknown }[]).map(async (d) => ({
          ...(await this.recall(d.id, false)),
          ...(shape === 'matches' ? { match: d.match } : {}),
        })),
      );
    return this.serialise(shape, { data: objects, meta });
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.engine.close();
  }
}
