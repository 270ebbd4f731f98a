/**
 * Opens the interactive reference at /docs in a real browser (Debian's Chromium, headless,
 * driven by playwright-core) against the real app on 127.0.0.1, and checks that Swagger UI
 * renders all nine operations from assets the service serves itself: no request may leave
 * the page's own origin (no CDN, no font or validator service), and that each error status of
 * each operation shows an example of its own problem type.
 *
 * Needs /usr/bin/chromium (`apt-get install chromium`). Without it the tests skip with a
 * message, unless RECALLS_REQUIRE_BROWSER=1, in which case they fail (for CI). With
 * RECALLS_KEEP_SCREENSHOT=1 the temporary folder and its screenshots are kept; their paths are
 * printed as test diagnostics.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { createMemoryBurstLimiter, type BurstLimiter } from '../../src/node/burst-limiter.ts';
import { SOURCE_ADAPTERS, SOURCE_IDS } from '../../src/ingest/registry.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { sqliteOnly } from '../support/database.ts';
import { CacheRegistry } from '../../src/node/caches.ts';

const CHROMIUM = '/usr/bin/chromium';
const REQUIRE_BROWSER_ENV = 'RECALLS_REQUIRE_BROWSER';
/** Set to 1 to keep the temporary folder (and the screenshots in it) after the tests. */
const KEEP_ENV = 'RECALLS_KEEP_SCREENSHOT';
/**
 * A host name in the reserved `.test` domain that the browser alone resolves to 127.0.0.1, so
 * the page can be opened the way a user on another machine opens it: plain HTTP, by name, not
 * from a loopback address (which browsers treat as secure and handle differently).
 */
const LAN_HOST = 'recalls-docs.example.test';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1`,
];

/** The nine operations of the contract: operationId, method and path as Swagger UI renders them. */
const OPERATIONS = [
  { operationId: 'listRecalls', method: 'GET', path: '/v1/recalls' },
  { operationId: 'getRecall', method: 'GET', path: '/v1/recalls/{id}' },
  { operationId: 'listRecallRevisions', method: 'GET', path: '/v1/recalls/{id}/revisions' },
  { operationId: 'lookupByIdentifier', method: 'GET', path: '/v1/identifiers/{kind}/{value}' },
  { operationId: 'runCheck', method: 'POST', path: '/v1/checks' },
  { operationId: 'listChecks', method: 'GET', path: '/v1/checks' },
  { operationId: 'getCheck', method: 'GET', path: '/v1/checks/{id}' },
  { operationId: 'listSources', method: 'GET', path: '/v1/sources' },
  { operationId: 'getHealth', method: 'GET', path: '/v1/health' },
] as const;

/** What Swagger UI shows for one operation block. */
interface RenderedOperation {
  /** The block's deep-link id, `operations-<tag>-<operationId>`. */
  domId: string;
  method: string;
  path: string;
  summary: string;
}

const missingBrowser = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} not found: install Debian's chromium package (apt-get install -y chromium) to run the browser tests`;

if (missingBrowser !== undefined && process.env[REQUIRE_BROWSER_ENV] === '1') {
  test('Chromium is installed for the /docs browser tests', () => {
    throw new Error(`${missingBrowser}; ${REQUIRE_BROWSER_ENV}=1 requires it`);
  });
}

const skip =
  sqliteOnly('the page does not depend on the engine') ||
  (missingBrowser === undefined ? false : `${missingBrowser}; set ${REQUIRE_BROWSER_ENV}=1 to fail instead`);

describe('the /docs page in a real browser', { skip }, () => {
  let dir: string;
  let store: Store;
  let burstLimiter: BurstLimiter;
  let app: App;
  let port: string;
  let browser: Browser;

  before(async () => {
    const { chromium } = await import('playwright-core');
    dir = mkdtempSync(join(tmpdir(), 'recalls-docs-'));
    const config = loadConfig({ RECALLS_ARCHIVE_DIR: join(dir, 'archive') }, SOURCE_IDS);
    config.database = { engine: 'sqlite', path: join(dir, 'recalls.db') };
    const caches = new CacheRegistry();
    store = await openStore(config.database, { caches });
    burstLimiter = createMemoryBurstLimiter();
    app = await buildApp({
      store,
      config,
      sources: SOURCE_ADAPTERS.map((a) => a.meta),
      burstLimiter,
      caches,
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    assert.match(address, /^http:\/\/127\.0\.0\.1:\d+$/);
    port = new URL(address).port;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
  });

  after(async () => {
    await browser?.close();
    await app?.close();
    await burstLimiter?.close();
    await store?.close();
    if (dir !== undefined && process.env[KEEP_ENV] !== '1') rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Opens `<origin>/docs`, waits for Swagger UI to render, checks the nine operations and that
   * every request stayed on `origin`, and saves a full-page screenshot as `<name>.png`.
   */
  async function checkDocs(t: TestContext, origin: string, name: string): Promise<void> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      // Every request the page makes, in order. Anything not for the page's origin is recorded
      // and aborted, so a CDN reference fails the test without the test reaching the internet.
      const requested: string[] = [];
      const isLocal = (url: string) =>
        url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === origin;
      await context.route('**/*', (route) =>
        isLocal(route.request().url()) ? route.continue() : route.abort('blockedbyclient'),
      );
      const page = await context.newPage();
      page.on('request', (request) => requested.push(request.url()));
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') t.diagnostic(`browser console error: ${message.text()}`);
      });

      const response = await page.goto(`${origin}/docs`, { waitUntil: 'load', timeout: 30_000 });
      assert.ok(response !== null && response.ok(), `GET /docs answered ${response?.status()}`);
      try {
        // Swagger UI fetches the document and renders one .opblock per operation.
        await page
          .locator('.swagger-ui .opblock')
          .nth(OPERATIONS.length - 1)
          .waitFor({ state: 'visible', timeout: 20_000 });
        await page.waitForLoadState('networkidle');
      } finally {
        const screenshot = join(dir, `${name}.png`);
        await page.screenshot({ path: screenshot, fullPage: true });
        t.diagnostic(`screenshot: ${screenshot}`);
        t.diagnostic(`requests: ${requested.join(' ')}`);
      }

      const foreign = requested.filter((u) => !isLocal(u));
      assert.deepEqual(foreign, [], 'every request of the docs page stays on its own origin');
      const paths = requested.filter((u) => !u.startsWith('data:')).map((u) => new URL(u).pathname);
      assert.ok(
        paths.some((p) => p.endsWith('.css')) && paths.some((p) => p.endsWith('.js')),
        `the page's CSS and JavaScript are served by the service itself: ${requested.join(', ')}`,
      );

      const title = (await page.locator('.swagger-ui .info .title').first().textContent()) ?? '';
      assert.match(title, /Recall and Safety Alert Service/);
      assert.match(title, /1\.0\.0/, 'the interface version is shown next to the title');

      const rendered: RenderedOperation[] = await page.$$eval('.swagger-ui .opblock', (blocks) =>
        blocks.map((b) => ({
          domId: b.id,
          method: (b.querySelector('.opblock-summary-method')?.textContent ?? '').trim(),
          path: (b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '').trim(),
          summary: (b.querySelector('.opblock-summary-description')?.textContent ?? '').trim(),
        })),
      );
      assert.equal(rendered.length, OPERATIONS.length, `rendered: ${JSON.stringify(rendered, null, 2)}`);
      for (const op of OPERATIONS) {
        const block = rendered.find((r) => r.domId.endsWith(`-${op.operationId}`));
        assert.ok(
          block,
          `${op.operationId} is not rendered; rendered ids: ${rendered.map((r) => r.domId).join(', ')}`,
        );
        assert.equal(block.method, op.method, `${op.operationId} method`);
        assert.equal(block.path, op.path, `${op.operationId} path`);
        assert.notEqual(block.summary, '', `${op.operationId} shows a summary`);
      }
      assert.deepEqual(pageErrors, [], 'no uncaught script errors on the page');
    } finally {
      await context.close();
    }
  }

  test('shows each error status with an example of its own problem type', { timeout: 90_000 }, async () => {
    const expected: Record<string, string[]> = {
      '400': ['/problems/invalid-parameter', '/problems/invalid-cursor'],
      '401': ['/problems/unauthorized'],
      '402': ['/problems/quota-exceeded'],
      '403': ['/problems/forbidden'],
      '404': ['/problems/not-found'],
      '429': ['/problems/rate-limited'],
      '500': ['/problems/internal'],
    };
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${port}/docs`, { waitUntil: 'load', timeout: 30_000 });
      await page
        .locator('.swagger-ui .opblock')
        .nth(OPERATIONS.length - 1)
        .waitFor({ state: 'visible', timeout: 20_000 });
      let shown = 0;
      for (const op of OPERATIONS) {
        const block = page.locator(`.swagger-ui .opblock[id$="-${op.operationId}"]`);
        await block.locator('.opblock-summary').first().click();
        await block.locator('tr.response[data-code="500"]').waitFor({ timeout: 10_000 });
        const rows: [string, string][] = await block
          .locator('tr.response')
          .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-code') ?? '', tr.textContent ?? '']));
        for (const [code, text] of rows) {
          if (Number(code) < 400) continue;
          const type = /"type": "([^"]+)"/.exec(text)?.[1];
          assert.ok(
            type !== undefined && expected[code]!.includes(type),
            `${op.operationId} ${code} shows ${type}`,
          );
          assert.match(text, new RegExp(`"status": ${code}\\b`), `${op.operationId} ${code}`);
          shown++;
        }
      }
      assert.equal(shown, 8 * 7 + 3, 'seven error statuses on each keyed operation, three on health');
    } finally {
      await context.close();
    }
  });

  test(
    'renders all nine operations from local assets when opened on 127.0.0.1',
    { timeout: 90_000 },
    async (t) => {
      await checkDocs(t, `http://127.0.0.1:${port}`, 'docs-loopback');
    },
  );

  test(
    'renders all nine operations when opened over plain HTTP by host name, as from another machine',
    {
      timeout: 90_000,
    },
    async (t) => {
      await checkDocs(t, `http://${LAN_HOST}:${port}`, 'docs-by-host-name');
    },
  );
});
