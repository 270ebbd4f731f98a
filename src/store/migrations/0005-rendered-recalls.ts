/**
 * Each recall's served JSON, rendered once: its content fields and its identifiers list as the API serves
 * them, stored beside the content they come from (ingestion renders them whenever it writes the content).
 * Rows already stored are rendered here from their canonical content, in batches of one statement each.
 */
import { sql, type Kysely } from 'kysely';
import { renderContentFields, renderIdentifiers } from '../../domain/recall-json.ts';
import type { RecallContent } from '../../domain/recall.ts';

/** Rows rendered per UPDATE statement (four parameters each, well within both engines' limits). */
const BATCH = 500;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['rendered_fields', 'rendered_identifiers'])
    await db.schema
      .alterTable('recalls')
      .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  await renderStoredRecalls(db);
}

/** Renders every stored recall's served JSON from its canonical content (the stored `content`). */
export async function renderStoredRecalls(db: Kysely<unknown>): Promise<void> {
  let after = '';
  for (;;) {
    const { rows } = await sql<{ id: string; content: string }>`
      SELECT id, content FROM recalls WHERE id > ${after} ORDER BY id LIMIT ${BATCH}`.execute(db);
    if (rows.length === 0) return;
    const rendered = rows.map((r) => {
      const content = JSON.parse(r.content) as RecallContent;
      return {
        id: r.id,
        fields: renderContentFields(content),
        identifiers: renderIdentifiers(content.identifiers),
      };
    });
    const cases = (value: 'fields' | 'identifiers') =>
      sql.join(
        rendered.map((r) => sql`WHEN ${r.id} THEN ${r[value]}`),
        sql` `,
      );
    await sql`
      UPDATE recalls
      SET rendered_fields = CASE id ${cases('fields')} END,
          rendered_identifiers = CASE id ${cases('identifiers')} END
      WHERE id IN (${sql.join(rendered.map((r) => r.id))})`.execute(db);
    after = rows[rows.length - 1]!.id;
  }
}
