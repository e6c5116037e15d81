// The plan diagram panel under the DBT3 tables. Every boundary the page draws is checked
// against `costlab dbt3 --diagram` on the same scenario (same knobs, ranges and grid): the
// page's worker and the command line run the same core, so the boundaries must be the
// same to the last digit the JSON carries. A click on a cell sets the knobs to it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, open, cli } from './browser.mjs';
import { frame } from './tables.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Opens the DBT3 view at SF 10 for one engine on one machine. */
async function dbt3(engine, machine) {
  const { page, problems } = await open(browser);
  await page.locator('#workload').waitFor();
  await page.selectOption('#workload', 'dbt3');
  await page.selectOption('#engines', engine);
  await page.selectOption('#machine', machine);
  const sf = page.locator('#dbt3-sf');
  await sf.fill('10');
  await sf.press('Enter');
  await page.locator('#diagram-open').waitFor({ timeout: 60000 });
  await page.locator('#diagram-open').check();
  await page.locator('#diagram-query').waitFor();
  return { page, problems };
}

/** Waits for the fine picture of `query` over x (and y), and returns what it draws. */
async function fine(page, query, x, y) {
  const svg = `svg.diagram[data-query="${query}"][data-x="${x}"][data-y="${y}"]`;
  await page.waitForFunction(
    (sel) => document.querySelector(sel) && document.querySelector('.diagram-state')?.dataset.fine === 'true',
    svg,
    { timeout: 60000 },
  );
  return page.locator(`${svg} circle.boundary`).evaluateAll((cs) =>
    cs.map((c) => ({
      query: Number(c.dataset.query),
      axis: Number(c.dataset.axis),
      row: Number(c.dataset.row),
      col: Number(c.dataset.col),
      at: Number(c.dataset.at),
    })),
  );
}

/** The boundaries `costlab` finds on the same scenario. */
function coreBoundaries(report) {
  return report.diagrams.flatMap((d) =>
    d.diagram.boundaries.map((b) => ({ query: d.query, axis: b.axis, row: b.row, col: b.col, at: b.at })),
  );
}

/** Every boundary drawn is one of costlab's, and the other way round: on the same edge
 *  line (query, axis, and the row or column it runs along) within the bisection's
 *  tolerance (1e-6 of the axis). Where two plans cost exactly the same along a line (MySQL
 *  at io_block_read_cost = memory_block_read_cost) the wasm's and the native build's last
 *  bit of exp() can put a grid point on either side, so a boundary may sit on the
 *  neighbouring edge by that much. */
function sameBoundaries(drawn, core, what) {
  assert.equal(drawn.length, core.length, `${what}: ${drawn.length} boundaries drawn, costlab finds ${core.length}`);
  const line = (b) => `${b.query}/${b.axis}/${b.axis === 0 ? b.row : b.col}`;
  const near = (a, b) => Math.abs(a - b) <= 1e-5 * Math.max(Math.abs(a), Math.abs(b));
  const matched = (from, to) => from.every((b) => to.some((c) => line(c) === line(b) && near(c.at, b.at)));
  for (const b of drawn) assert.ok(matched([b], core), `${what}: boundary ${JSON.stringify(b)} is not costlab's`);
  assert.ok(matched(core, drawn), `${what}: a boundary of costlab's is not drawn`);
}

test('Q8 over io_block_read_cost x memory_block_read_cost: every boundary is costlab\'s, a click sets both knobs', async () => {
  const { page, problems } = await dbt3('mysql', 'wl8737-disk');
  const t0 = Date.now();
  await page.selectOption('#diagram-query', '8');
  await page.selectOption('#diagram-x', 'io_block_read_cost');
  await page.selectOption('#diagram-y', 'memory_block_read_cost');
  const first = Date.now();
  await page.waitForSelector('svg.diagram[data-query="8"][data-y="memory_block_read_cost"]', { timeout: 60000 });
  const firstMs = Date.now() - first;
  const drawn = await fine(page, 8, 'io_block_read_cost', 'memory_block_read_cost');
  const completeMs = Date.now() - first;
  // The page's ranges: a quarter to four times MySQL 5.7's default of 1.0, 50 x 50.
  const report = cli([
    'dbt3', '--engine', 'mysql', '--release', '5.7', '--sf', '10', '--profile', 'wl8737-disk',
    '--query', '8', '--diagram', 'io_block_read_cost=0.25:4', '--diagram', 'memory_block_read_cost=0.25:4',
    '--grid', '50', '--json',
  ]);
  const core = coreBoundaries(report);
  assert.ok(core.length >= 20, `Q8 has ${core.length} boundaries here`);
  sameBoundaries(drawn, core, 'Q8');
  // Each plan the legend lists, with the core's count of cells: the same to within the
  // cells of the diagonal where two plans tie exactly (see sameBoundaries).
  const legend = await page.locator('.diagram-legend li').allInnerTexts();
  const d = report.diagrams[0].diagram;
  for (const p of d.plans.filter((p) => p.cells > 0)) {
    const line = legend.find((l) => l.includes(` ${p.summary} · `));
    assert.ok(line, `no legend line for ${p.summary}: ${legend}`);
    const cells = Number(line.match(/ (\d+) cells/)[1]);
    assert.ok(Math.abs(cells - p.cells) <= 50, `${p.summary}: ${cells} cells drawn, costlab ${p.cells}`);
  }
  // A click in the cell of column 10, row 40 (rows counted from the bottom) sets the knobs
  // to that cell's values.
  await page.locator('svg.diagram').scrollIntoViewIfNeeded();
  const box = await page.locator('svg.diagram').boundingBox();
  const scale = box.width / 610;
  const [col, row] = [10, 40];
  await page.mouse.click(box.x + (80 + (col + 0.5) * 10.4) * scale, box.y + (8 + (49 - row + 0.5) * 10.4) * scale);
  await frame(page);
  const io = Number(await page.locator('[data-knob="io_block_read_cost"] input[type="number"]').inputValue());
  const mem = Number(await page.locator('[data-knob="memory_block_read_cost"] input[type="number"]').inputValue());
  assert.ok(Math.abs(io - d.x.values[col]) <= 1e-6 * d.x.values[col], `io_block_read_cost ${io}, cell ${d.x.values[col]}`);
  assert.ok(Math.abs(mem - d.y.values[row]) <= 1e-6 * d.y.values[row], `memory_block_read_cost ${mem}, cell ${d.y.values[row]}`);
  console.log(`# measure plan diagram Q8 MySQL 50 x 50 (io x memory), from the last of three control changes: first picture ${firstMs} ms, complete ${completeMs} ms (${Date.now() - t0} ms in all)`);
  // From an idle worker: the y axis moves to row_evaluate_cost, then the flip map.
  await fine(page, 8, 'io_block_read_cost', 'memory_block_read_cost');
  await page.waitForTimeout(500);
  let t = Date.now();
  await page.selectOption('#diagram-y', 'row_evaluate_cost');
  await page.waitForSelector('svg.diagram[data-query="8"][data-y="row_evaluate_cost"]', { timeout: 60000 });
  const first2 = Date.now() - t;
  await fine(page, 8, 'io_block_read_cost', 'row_evaluate_cost');
  console.log(`# measure plan diagram Q8 MySQL 50 x 50 (io x row_evaluate_cost) from an idle worker: first picture ${first2} ms, complete ${Date.now() - t} ms`);
  // The link carries the diagram: opened in a new page it draws the same picture.
  const link = page.url();
  assert.match(link, /[#&]dg=mysql,8,iobrc,rec,open(&|$)/);
  const again = await open(browser, link);
  const redrawn = await fine(again.page, 8, 'io_block_read_cost', 'row_evaluate_cost');
  assert.ok(redrawn.length > 0, 'the diagram from the link has boundaries');
  assert.equal(await again.page.locator('#diagram-open').isChecked(), true);
  assert.equal(await again.page.locator('#diagram-query').inputValue(), '8');
  assert.equal(await again.page.locator('#diagram-y').inputValue(), 'row_evaluate_cost');
  assert.deepEqual(again.problems, []);
  await again.page.close();
  await page.waitForTimeout(500);
  t = Date.now();
  await page.selectOption('#diagram-query', 'all');
  await fine(page, 'all', 'io_block_read_cost', '');
  console.log(`# measure DBT3 flip map MySQL 22 x 50 from an idle worker: complete ${Date.now() - t} ms`);
  assert.deepEqual(problems, []);
});

test('Q12 over random_page_cost x effective_cache_size on PostgreSQL, and the flip map of both engines', async () => {
  const { page, problems } = await dbt3('postgres', 'wl8737-memory');
  await page.selectOption('#diagram-query', '12');
  await page.selectOption('#diagram-x', 'random_page_cost');
  await page.selectOption('#diagram-y', 'effective_cache_size');
  const drawn = await fine(page, 12, 'random_page_cost', 'effective_cache_size');
  // random_page_cost 1 to 16 (default 4), effective_cache_size 1 GB to 16 GB (default 4 GB,
  // in 8 kB pages).
  const report = cli([
    'dbt3', '--engine', 'postgres', '--release', '18', '--sf', '10', '--profile', 'wl8737-memory',
    '--query', '12', '--diagram', 'random_page_cost=1:16', '--diagram', 'effective_cache_size=131072:2097152',
    '--grid', '50', '--json',
  ]);
  sameBoundaries(drawn, coreBoundaries(report), 'Q12');
  // Exports: CSV a line per cell, SVG the picture with a size of its own, PNG at twice it.
  const download = async (sel) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(sel)]);
    return readFileSync(await dl.path());
  };
  const csv = (await download('.diagram-csv')).toString();
  assert.equal(csv.trim().split('\n').length, 1 + 50 * 50);
  assert.match(csv.split('\n')[0], /^query,random_page_cost,effective_cache_size,plan,/);
  const svg = (await download('.diagram-svg')).toString();
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" [^>]*width="610" height="\d+"/);
  const png = await download('.diagram-png');
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.equal(png.readUInt32BE(16), 1220, 'PNG width');
  // The flip map: 22 queries over random_page_cost, from an idle worker.
  await page.waitForTimeout(500);
  const t = Date.now();
  await page.selectOption('#diagram-query', 'all');
  const flips = await fine(page, 'all', 'random_page_cost', '');
  const ms = Date.now() - t;
  const map = cli([
    'dbt3', '--engine', 'postgres', '--release', '18', '--sf', '10', '--profile', 'wl8737-memory',
    '--diagram', 'random_page_cost=1:16', '--grid', '50', '--json',
  ]);
  sameBoundaries(flips, coreBoundaries(map), 'flip map');
  console.log(`# measure DBT3 flip map PostgreSQL 22 x 50 from an idle worker: complete ${ms} ms`);
  // A click on the flip map's twelfth row (Q12), column 30: random_page_cost goes to that
  // column's value and Q12's row opens in the table with its plans.
  await page.locator('svg.diagram').scrollIntoViewIfNeeded();
  const box = await page.locator('svg.diagram').boundingBox();
  const scale = box.width / 610;
  const xs = map.diagrams[0].diagram.x.values;
  assert.equal(map.diagrams[11].query, 12);
  await page.mouse.click(box.x + (80 + 30.5 * (520 / xs.length)) * scale, box.y + (8 + 11.5 * 14) * scale);
  await page.waitForSelector('#dbt3-pg tr[data-q="12"][aria-expanded="true"]');
  const rpc = Number(await page.locator('[data-knob="random_page_cost"] input[type="number"]').inputValue());
  assert.ok(Math.abs(rpc - xs[30]) <= 1e-6 * xs[30], `random_page_cost ${rpc}, column ${xs[30]}`);
  await page.waitForSelector('#dbt3-pg-detail .plan-tree.current');
  assert.match(await page.locator('#dbt3-pg-detail h3').innerText(), /^Q12 /);
  assert.deepEqual(problems, []);
});
