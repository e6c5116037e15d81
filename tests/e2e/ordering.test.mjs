// The third seed's ordering workload in the page: every shape's times and function calls
// must be what `costlab ordering` computes on the same inputs, stock against the series;
// the series switch and the declared function cost travel in the link; switching the
// series off leaves nothing to gain.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, cli } from './browser.mjs';
import { frame } from './tables.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Waits until the view shows the reply to its latest request, made after `before`. */
async function replied(page, before = 0) {
  await page.waitForFunction((b) => {
    const v = document.querySelector('section.ordering-view');
    const r = Number(v?.dataset.requested ?? 0);
    return r > 0 && r > b && v.dataset.shown === v.dataset.requested;
  }, before);
}

const requested = (page) =>
  page.evaluate(() => Number(document.querySelector('section.ordering-view')?.dataset.requested ?? 0));

/** The page's rows: shape, stock ms, build ms, calls text. */
async function rows(page) {
  return page.locator('tr.ordering-row').evaluateAll((trs) =>
    trs.map((tr) => {
      const cells = [...tr.querySelectorAll(':scope > td')].map((td) => td.innerText.trim());
      return { name: tr.dataset.shape, stock: Number(cells[1]), build: Number(cells[2]), calls: cells[5] };
    }),
  );
}

function assertRowsAreTheCores(shown, report, series) {
  assert.equal(shown.length, report.rows.length);
  for (const [s, r] of shown.map((s, i) => [s, report.rows[i]])) {
    assert.equal(s.name, r.name);
    assert.equal(s.stock, Number(r.stock_ms.toFixed(3)), `${r.name} stock`);
    const build = series ? r.series_ms : r.stock_ms;
    assert.equal(s.build, Number(build.toFixed(3)), `${r.name} build`);
    const calls = series ? r.series_calls : r.stock_calls;
    assert.equal(s.calls, `${r.stock_calls.toFixed(0)} → ${calls.toFixed(0)}`, `${r.name} calls`);
  }
}

test('ordering view: the shapes and the mix are costlab ordering\'s; the series switch and the function cost travel in the link', async () => {
  const { page, problems } = await open(browser, '#v=1&e=pg&m=seed-nvme&w=ordering&sf=1');
  await replied(page);
  const common = ['ordering', '--sf', '1', '--release', '18', '--profile', 'seed-nvme', '--json'];
  const report = cli(common);
  assertRowsAreTheCores(await rows(page), report, true);
  // The positive shapes run faster with the series, and make no calls.
  for (const name of ['P1', 'P2', 'P3']) {
    const change = Number(await page.locator(`tr[data-shape="${name}"]`).getAttribute('data-change'));
    assert.ok(change < 0, `${name}: ${change}`);
  }
  // The mix's table at the seed's w: the gain on the seed's stock times is the core's.
  const at = (w) => report.seed_times_mix.find((p) => Math.abs(p.w - w) < 1e-9);
  const want = (w) => `${((at(w).series_qps / at(w).stock_qps - 1) * 100 >= 0 ? '+' : '')}${((at(w).series_qps / at(w).stock_qps - 1) * 100).toFixed(1)} %`;
  for (const w of [0.2, 0.8]) {
    const cell = await page.locator(`tr.mix-row[data-w="${w}"] td.gain-seed-times`).innerText();
    assert.equal(cell.trim(), want(w), `w = ${w}`);
  }
  const planningMs = Number(await page.locator('.planning-time').getAttribute('data-ms'));
  assert.ok(planningMs > 0);
  console.log(`# measure TPROC-H planning (DBT3's 22 at SF 30, PostgreSQL 18 model, the worker's wasm): ${planningMs.toFixed(1)} ms, the seed's PostgreSQL 18.47 ms`);
  assert.equal(await page.locator('#ordering-mix canvas, canvas#ordering-mix').count() > 0, true);

  // The series off: stock against itself, nothing changes, and the link says so.
  let before = await requested(page);
  await page.locator('#ordering-series').uncheck();
  await frame(page);
  await replied(page, before);
  for (const r of await rows(page)) assert.equal(r.build, r.stock, r.name);
  await page.waitForFunction(() => location.hash.includes('series=0'));

  // A declared cost of 1 (a plain function): the planner's belief moves, not the body's time.
  await page.locator('#ordering-series').check();
  before = await requested(page);
  await page.locator('#ordering-procost').fill('1');
  await page.locator('#ordering-procost').press('Enter');
  await frame(page);
  await replied(page, before);
  await page.waitForFunction(() => location.hash.includes('fc=1'));
  assertRowsAreTheCores(await rows(page), cli([...common, '--function-cost', '1']), true);

  // The link reproduces the view.
  const link = await page.evaluate(() => location.hash);
  const again = await open(browser, link);
  await replied(again.page);
  assert.equal(await again.page.locator('#ordering-procost').inputValue(), '1');
  assertRowsAreTheCores(await rows(again.page), cli([...common, '--function-cost', '1']), true);
  assert.deepEqual([...problems, ...again.problems], []);
});
