// The user's workload view: a scenario file's tables (the example costlab ships), queries
// typed or pasted, each planned under a baseline and under the current constants. Every row
// must be what `costlab workload` computes on the same file and queries; a query the SQL
// front end refuses shows why, with the part of its text it names marked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, open, cli } from './browser.mjs';
import { frame, requested, replied, setKnob, assertTableIsTheCores } from './tables.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXAMPLE = join(ROOT, 'static', 'example-shop.json');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Three join queries of our own (none of the example's), one per line. */
const PASTED = [
  'SELECT c.name, o.total FROM customers c JOIN orders o ON o.cust_id = c.cust_id WHERE c.city = \'Gent\' AND o.total > 1900',
  'SELECT p.title, sum(l.qty) FROM products p JOIN order_lines l ON l.prod_id = p.prod_id WHERE p.cat_id = 7 GROUP BY p.title',
  'SELECT o.order_id, count(*) FROM orders o JOIN order_lines l ON l.order_id = o.order_id JOIN products p ON p.prod_id = l.prod_id WHERE o.ordered BETWEEN DATE \'2021-03-01\' AND DATE \'2021-03-07\' AND p.price > 250 GROUP BY o.order_id',
].join('\n');

/** Writes `text` to a fresh file and returns its path (for `costlab workload --queries`). */
function queriesFile(text) {
  const dir = mkdtempSync(join(tmpdir(), 'costlab-e2e-'));
  const path = join(dir, 'queries.sql');
  writeFileSync(path, text);
  return path;
}

/** Types into the queries box as a paste does (one input event) and waits for the reply. */
async function pasteQueries(page, text) {
  const before = await requested(page);
  await page.locator('#user-queries').fill(text);
  await frame(page);
  await replied(page, before);
}

test('your workload: the example file, three pasted join queries, random_page_cost moved: every row is costlab workload\'s', async () => {
  const { page, problems } = await open(browser, '#v=1&e=both&w=user');
  await page.locator('#user-pg tbody tr').first().waitFor();
  await replied(page);
  // The example's own six queries are planned before anything is loaded.
  assert.equal(await page.locator('#user-pg tbody tr[data-q]').count(), 6);

  // Load the example as a user loads a file: the worker reads it.
  await page.locator('#scenario-file').setInputFiles(EXAMPLE);
  await page.locator('.scenario-summary li').first().waitFor();
  assert.match(await page.locator('.scenario-summary').innerText(), /orders: 300000 rows, 1911 pages, 5 columns, 3 indexes/);
  assert.equal(await page.locator('.user-tables').getAttribute('data-tables'), 'example-shop.json');
  await replied(page);

  await pasteQueries(page, PASTED);
  await setKnob(page, 'random_page_cost', 1.1);
  await page.locator('#user-pg tbody tr[data-q="3"]').waitFor();

  const file = queriesFile(PASTED);
  const common = ['--scenario', EXAMPLE, '--queries', file, '--profile', 'wl8737-memory', '--json'];
  const pg = cli(['workload', '--engine', 'postgres', '--release', '18', '--set', 'random_page_cost=1.1', ...common]);
  assert.equal(pg.rows.length, 3);
  assert.ok(pg.rows.some((r) => r.plan_changed), 'random_page_cost 1.1 changes some plan of these queries');
  assert.match(await page.locator('#user-pg h2').innerText(), /^PostgreSQL 18: your queries on example-shop.json on /);
  await assertTableIsTheCores(page, 'pg', pg, 'user');
  const mysql = cli(['workload', '--engine', 'mysql', '--release', '5.7', '--baseline', 'mysql-5.7', ...common]);
  assert.equal(mysql.rows.length, 3);
  await assertTableIsTheCores(page, 'mysql', mysql, 'user');

  // A row opens both plan trees, as in the DBT3 view.
  await page.locator('#user-pg tr[data-q="2"]').click();
  await page.locator('#user-pg-detail .plan-tree.current').waitFor();

  // The loaded file is too large for a link: the link names it and keeps the queries.
  // Wait for the link to carry the pasted queries: before the paste it already carried the
  // example's (a loaded file's link always names its queries), and the address follows the
  // state a frame or more later.
  await page.waitForFunction((want) => location.hash.slice(1).split('&')
    .some((pair) => pair.startsWith('uq=') && decodeURIComponent(pair.slice(3)) === want), PASTED);
  const link = await page.evaluate(() => location.hash);
  assert.match(link, /uf=example-shop\.json/);
  assert.doesNotMatch(link, /ut=/);
  const again = await open(browser, link);
  await again.page.locator('.link-problems').waitFor();
  assert.match(await again.page.locator('.link-problems').innerText(), /too large for a link/);
  assert.match(await again.page.locator('#user-pg .error').innerText(), /load it in the Workload panel/);
  assert.equal(await again.page.locator('#user-queries').inputValue(), PASTED);
  await again.page.close();

  assert.equal(await page.locator('.error').count(), 0, await page.locator('.error').allInnerTexts().then(String));
  assert.deepEqual(problems, []);
});

test('a query the front end refuses shows why, its text marked where; the others are planned', async () => {
  const { page, problems } = await open(browser, '#v=1&e=pg&w=user');
  await page.locator('#user-pg tbody tr').first().waitFor();
  await replied(page);
  const text = [
    'SELECT o.order_id, rank() OVER (ORDER BY o.total) FROM orders o JOIN customers c ON c.cust_id = o.cust_id',
    'SELECT c.city, count(*) FROM customers c JOIN orders o ON o.cust_id = c.cust_id GROUP BY c.city',
    'SELECT c.name FROM customers c WHERE c.nosuch = 3',
  ].join('\n');
  await pasteQueries(page, text);
  const report = cli(['workload', '--engine', 'postgres', '--scenario', EXAMPLE, '--queries', queriesFile(text),
    '--profile', 'wl8737-memory', '--json']);
  assert.deepEqual(report.refused.map((r) => r.query), [1, 3]);
  await assertTableIsTheCores(page, 'pg', report, 'user');
  for (const r of report.refused) {
    const row = page.locator(`#user-pg tr.refused[data-q="${r.query}"]`);
    assert.equal(await row.locator('.error').innerText(), r.error);
    const line = text.split('\n')[r.query - 1];
    const bytes = Buffer.from(line);
    if (r.end > r.start) {
      assert.equal(await row.locator('mark').innerText(), bytes.subarray(r.start, r.end).toString());
    }
  }
  assert.match(report.refused[0].error, /window function/);
  assert.ok(report.refused[0].end > report.refused[0].start, 'the window function is marked');
  assert.equal(await page.locator('#user-pg tr.refused[data-q="1"] mark').count(), 1);
  assert.deepEqual(problems, []);
});

test('the example travels in a link with its queries; too many queries are refused and nothing typed is lost', async () => {
  const queries = 'SELECT count(*) FROM orders o JOIN customers c ON c.cust_id = o.cust_id WHERE c.vip';
  const { page, problems } = await open(browser, `#v=1&e=pg&w=user&uq=${encodeURIComponent(queries)}`);
  await page.locator('#user-pg tbody tr').first().waitFor();
  await replied(page);
  assert.equal(await page.locator('#user-queries').inputValue(), queries);
  assert.equal(await page.locator('#user-pg tbody tr[data-q]').count(), 1);

  const many = Array.from({ length: 100 }, (_, i) => `SELECT count(*) FROM orders o WHERE o.order_id = ${i}`).join('\n');
  await page.locator('#user-queries').fill(many);
  await frame(page);
  assert.match(await page.locator('.error[role="alert"]').first().innerText(), /at most 99 queries/);
  assert.equal(await page.locator('#user-queries').inputValue(), many);
  // The last accepted queries stay planned, and in the link.
  assert.equal(await page.locator('#user-pg tbody tr[data-q]').count(), 1);
  assert.match(await page.evaluate(() => location.hash), /uq=SELECT%20count/);
  assert.deepEqual(problems, []);
});
