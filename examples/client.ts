/**
 * A program using the typed client as a shop's integration would, imported by package name:
 *   node client.js BASE_URL API_KEY KIND VALUE
 * lists recalls, walks the cursor to its end, looks up one identifier, checks a small catalogue, re-reads the
 * receipt and reproduces its digests offline, then prints a JSON summary. No casts, `tsc --strict` clean
 * (test/integration/client-program.test.ts type-checks and runs it against a real service).
 */
import {
  IDENTIFIER_KINDS,
  RecallsApiError,
  RecallsClient,
  checkDigestOf,
  isNotModified,
  normaliseIdentifier,
  resultDigestOf,
  type CheckReceipt,
  type IdentifierKind,
  type RecallSummary,
} from 'recall-alert-service/client';

function kindOf(text: string | undefined): IdentifierKind | undefined {
  return IDENTIFIER_KINDS.find((kind) => kind === text);
}

const [baseUrl, apiKey, kindArg, value] = process.argv.slice(2);
const kind = kindOf(kindArg);
if (baseUrl === undefined || apiKey === undefined || kind === undefined || value === undefined) {
  console.error(`usage: client BASE_URL API_KEY KIND VALUE (KIND: ${IDENTIFIER_KINDS.join(', ')})`);
  process.exit(2);
}

const client = new RecallsClient({
  baseUrl,
  apiKey,
  onRetry: ({ status, waitSeconds }) =>
    console.error(`${status ?? 'network error'}: retrying in ${waitSeconds} s`),
});

try {
  // One page, then every recall by walking the cursor to its end.
  const page = await client.listRecalls({ limit: 2 });
  const walked: RecallSummary[] = [];
  for await (const recall of client.recalls({ limit: 2 })) walked.push(recall);

  // One identifier, as printed on the product.
  const found = await client.lookup(kind, value);
  const normalised = normaliseIdentifier(kind, value);

  // A small catalogue: the identifier, a duplicate of it, and one that cannot be normalised.
  const catalogue = [
    { kind, value },
    { kind, value: ` ${value} ` },
    { kind: 'ean', value: '123' },
  ];
  const run = await client.runCheck(
    { label: 'example', identifiers: catalogue },
    { idempotencyKey: 'example-1' },
  );
  const receipt: CheckReceipt = run.data.data;
  const expected = checkDigestOf(catalogue);

  // The receipt re-read, then asked for again with its ETag: unchanged, so 304.
  const reread = await client.getCheck(receipt.check_id);
  const again = await client.getCheck(receipt.check_id, { ifNoneMatch: reread.etag });

  console.log(
    JSON.stringify({
      firstPage: page.data.data.map((r) => r.id),
      nextCursor: page.data.meta.next_cursor ?? null,
      walked: walked.map((r) => r.id),
      lookup: {
        normalized: normalised.ok ? normalised.normalized : null,
        recalls: found.data.data.map((r) => ({ id: r.id, matched: r.match.normalized })),
      },
      check: {
        id: receipt.check_id,
        replayed: run.replayed,
        submittedDigest: receipt.submitted_digest,
        submittedDigestReproduced: receipt.submitted_digest === expected.submittedDigest,
        submittedCount: receipt.submitted_count,
        rejected: receipt.rejected.map((r) => `${r.kind}:${r.value}:${r.reason}`),
        matches: (receipt.matches ?? []).map((m) => m.recall_id),
        resultDigestReproduced: receipt.result_digest === resultDigestOf(receipt.matches ?? []),
      },
      reread: {
        sameReceipt: JSON.stringify(reread.data.data) === JSON.stringify(receipt),
        notModified: isNotModified(again),
      },
    }),
  );
} catch (error) {
  if (!(error instanceof RecallsApiError)) throw error;
  console.error(`${error.status} ${error.problem.type}: ${error.problem.detail}`);
  process.exit(1);
}
