// What the DBT3 view and the user's workload view share in the end-to-end tests: waiting
// for the worker's reply, and reading a table against the command line's report.
import assert from 'node:assert/strict';
import { seconds } from './browser.mjs';

export const frame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** The id of the latest DBT3 request the page made (0 before the first). */
export const requested = (page) =>
  page.evaluate(() => Number(document.querySelector('section.dbt3')?.dataset.requested ?? 0));

/** Waits until the tables show the worker's reply to the latest request, made after `before`
 *  (or, when the input changed nothing, to the request already made). Planning happens in a
 *  worker, so the table is redrawn some time after the input. */
export async function replied(page, before = 0) {
  await page.waitForFunction((b) => {
    const t = document.querySelector('section.dbt3');
    const r = Number(t?.dataset.requested ?? 0);
    return r > 0 && r >= b && t.dataset.shown === t.dataset.requested;
  }, before);
}

/** Types `value` into knob `name`'s number field, presses Enter, and waits for the tables
 *  to show the reply (from the worker or the page's planner). */
export async function setKnob(page, name, value) {
  const before = await requested(page);
  const input = page.locator(`[data-knob="${name}"] input[type="number"]`);
  await input.fill(String(value));
  await input.press('Enter');
  // After two frames the page has rendered the input, with its new request if it made one.
  await frame(page);
  await replied(page, before);
}

/** A change as the table writes it: `{:+.1} %`. */
export const change = (pct) => `${pct < 0 || Object.is(pct, -0) ? '' : '+'}${pct.toFixed(1)} %`;
/** `amount` of the detail view: costs and rows. */
export const amount = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));

/** Median and 95th percentile of `key` over measurement samples (finite values only). */
export function percentiles(samples, key) {
  const sorted = samples.map((s) => s[key]).filter(Number.isFinite).sort((a, b) => a - b);
  const p = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, median: p(0.5), p95: p(0.95) };
}

/** `name median/p95` for each of `keys`, comma-separated: where a measurement's time went. */
export const split = (samples, keys) => keys
  .map((k) => { const s = percentiles(samples, k); return `${k} ${s.median.toFixed(1)}/${s.p95.toFixed(1)}`; })
  .join(', ');

/** Every cell's text of one engine's table, with the exact times the row carries. */
async function cells(page, section) {
  return page.locator(`${section} tbody tr:not(.refused)`).evaluateAll((trs) =>
    trs.map((tr) => ({
      q: tr.dataset.q,
      base: Number(tr.dataset.baseS),
      cur: Number(tr.dataset.curS),
      text: [...tr.children].map((td) => td.textContent),
    })),
  );
}

/** The table of `costlab dbt3 --json` as the page writes it, row by row and the totals. */
function expectedCells(report) {
  const rows = report.rows.map((r) => [
    `Q${r.query}`, r.title, r.plan_changed ? '⇄ changed' : 'same', r.baseline.summary,
    // Same join order but another plan: the cell says where it changed, as the CLI's table does.
    r.change && r.current.summary === r.baseline.summary ? r.change : r.current.summary,
    seconds(r.baseline.time_s), seconds(r.current.time_s), change(r.change_pct),
  ]);
  const base = report.rows.reduce((a, r) => a + r.baseline.time_s, 0);
  const cur = report.rows.reduce((a, r) => a + r.current.time_s, 0);
  const changed = report.rows.filter((r) => r.plan_changed).length;
  const totals = ['all', report.rows.length === 1 ? '1 query' : `${report.rows.length} queries`, `${changed} changed`, '', '', seconds(base), seconds(cur),
    change(base > 0 ? (100 * (cur - base)) / base : 0)];
  return { rows, totals };
}

/** Asserts that the table in section `#<prefix>-<id>` ("dbt3-pg", "user-mysql") is the
 *  report of `costlab dbt3|workload --json`, cell by cell, with the exact times. */
export async function assertTableIsTheCores(page, id, report, prefix = 'dbt3') {
  const section = page.locator(`#${prefix}-${id}`);
  // Errors other than a refused query's own row (the user's workload lists those).
  const errors = await section.locator('.error').evaluateAll((es) =>
    es.filter((e) => !e.closest('tr.refused')).map((e) => e.textContent));
  assert.deepEqual(errors, [], `${id}: ${errors}`);
  const shown = await cells(page, `#${prefix}-${id}`);
  const want = expectedCells(report);
  assert.equal(shown.length, want.rows.length);
  for (const [i, r] of report.rows.entries()) {
    const row = shown[i];
    assert.equal(row.q, String(r.query));
    assert.deepEqual(row.text, want.rows[i], `${id} Q${r.query}`);
    assert.ok(Math.abs(row.cur - r.current.time_s) <= 1e-9 * r.current.time_s, `${id} Q${r.query} time ${row.cur} vs ${r.current.time_s}`);
    assert.ok(Math.abs(row.base - r.baseline.time_s) <= 1e-9 * r.baseline.time_s, `${id} Q${r.query} baseline time`);
  }
  assert.deepEqual(await section.locator('tfoot tr').evaluate((tr) => [...tr.children].map((c) => c.textContent)), want.totals);
}
