// A validation report in the page: the committed PostgreSQL 15 report becomes a scatter of
// one mark per executed plan, with the summary lines the probe printed; a broken or wrong
// file is named, changes nothing and leaves the page working.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, open, SCREENSHOTS } from './browser.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const docs = join(dirname(fileURLToPath(import.meta.url)), '../../docs/validation');
const REPORT = join(docs, 'pg15.json');
const report = JSON.parse(readFileSync(REPORT, 'utf8'));
const plans = report.queries.flatMap((q) => q.plans.map((p) => ({ ...p, query: q.name, cache: q.cache })));
const executed = plans.filter((p) => p.real_s !== null);
// The summary lines the probe's run printed for this report.
const printed = readFileSync(join(docs, 'pg15.txt'), 'utf8').split('\n').filter((l) => l.includes(': fastest named in '));

const marks = (page, sel = '') => page.locator(`#validation-scatter-view svg.marks circle.mark${sel}`);

/** Each mark's centre in canvas pixels and whether the canvas is coloured within a pixel
 *  of it (a mark is drawn 4 px wide in a palette colour; background, grid, band and diagonal
 *  are grey; where marks overlap, the anti-aliased edge of one can leave a single pale pixel
 *  inside another). */
async function markPixels(page) {
  return page.locator('#validation-scatter-view .chart').evaluate((chart) => {
    const canvas = chart.querySelector('canvas');
    const svg = chart.querySelector('svg.marks');
    const ctx = canvas.getContext('2d');
    const sx = canvas.width / svg.viewBox.baseVal.width;
    const sy = canvas.height / svg.viewBox.baseVal.height;
    return [...svg.querySelectorAll('circle.mark:not(.hollow)')].map((c) => {
      const x = Math.round(c.cx.baseVal.value * sx);
      const y = Math.round(c.cy.baseVal.value * sy);
      const px = ctx.getImageData(x - 1, y - 1, 3, 3).data;
      let coloured = 0;
      for (let i = 0; i < px.length; i += 4) {
        if (Math.max(px[i], px[i + 1], px[i + 2]) - Math.min(px[i], px[i + 1], px[i + 2]) > 60) coloured++;
      }
      return { x, y, coloured: coloured >= 5 };
    });
  });
}

test('a validation report draws one mark per executed plan and the summary the probe printed', async () => {
  // The report is regenerated with the model: its own counts, none pinned here.
  assert.ok(executed.length > 0, 'the committed report');
  assert.ok(printed.length >= 7, 'six t1 groups and the whole');
  const { page, problems } = await open(browser);
  await page.locator('#validation-file').waitFor();
  await page.setInputFiles('#validation-file', REPORT);
  await marks(page).first().waitFor({ timeout: 20000 });
  await page.locator('#validation-scatter-view').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SCREENSHOTS, 'validation-1280.png'), fullPage: true });

  // One mark per executed plan, warm and cold apart, none stopped at the limit.
  assert.equal(await marks(page, ':not(.hollow)').count(), executed.length);
  assert.equal(await marks(page, '.hollow').count(), plans.length - executed.length);
  const series = await marks(page).evaluateAll((els) => els.map((e) => e.dataset.series));
  assert.equal(series.filter((s) => s === '0').length, executed.filter((p) => p.cache === 'warm').length);
  assert.equal(series.filter((s) => s === '1').length, executed.filter((p) => p.cache === 'cold').length);
  // The canvas has a mark under each finished plan's (a hollow one has none at its centre).
  const pixels = await markPixels(page);
  assert.equal(pixels.length, executed.length);
  const bare = pixels.filter((p) => !p.coloured);
  assert.deepEqual(bare, [], 'marks over no drawn mark');

  // Each mark's details, as title and accessible name: query, plan, real, simulated, ratio.
  const titles = await marks(page).evaluateAll((els) => els.map((e) => [e.querySelector('title').textContent, e.getAttribute('aria-label')]));
  for (const [title, label] of titles) assert.equal(title, label);
  const first = executed[0];
  // From the committed report's own figures (it is regenerated with the model).
  assert.ok(titles[0][0].startsWith(`${first.query} (t1-random, warm): ${first.key}; real `), titles[0][0]);
  assert.ok(titles[0][0].endsWith(`simulated/real ${(first.sim_s / first.real_s).toFixed(2)}`), titles[0][0]);
  for (const p of executed) {
    assert.ok(titles.some(([t]) => t.startsWith(`${p.query} (`) && t.includes(`): ${p.key}; real `)), `no mark for ${p.query} ${p.key}`);
  }
  // Focusing a mark shows its details in the readout.
  await marks(page).nth(3).focus();
  assert.equal(await page.locator('#validation-scatter-view .readout').innerText(), titles[3][0]);

  // The legend, the axes' units, the header and the core's summary lines.
  const legend = await page.locator('#validation-scatter-view .legend .label').allInnerTexts();
  // Then an entry per cache state with a plan stopped at the limit.
  const stoppedStates = ['warm', 'cold'].filter((c) => plans.some((p) => p.cache === c && p.real_s === null));
  assert.deepEqual(legend.slice(0, 4), ['simulated = real', 'simulated within 2x of real', 'warm', 'cold']);
  assert.deepEqual(legend.slice(4).map((l) => l.split(',')[0]), stoppedStates);
  const header = await page.locator('.validation-header').innerText();
  assert.match(header, /^pg15\.json: PostgreSQL 15 \(server 15\.18 \(Debian 15\.18-0\+deb12u1\)\) on Measured: AMD EPYC/);
  assert.ok(
    header.includes(`${executed.length} plans executed, ${plans.length - executed.length} stopped at the limit of ${report.limit_s.toFixed(1)} s`),
    header,
  );
  assert.deepEqual(await page.locator('.validation-summary li').allInnerTexts(), printed);
  assert.deepEqual(problems, []);
});

test('a broken or wrong validation file is named, changes nothing, and the page keeps working', async () => {
  const { page, problems } = await open(browser);
  await page.locator('#validation-file').waitFor();
  const dir = mkdtempSync(join(tmpdir(), 'costlab-validation-'));
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, readFileSync(REPORT, 'utf8').slice(0, 500));
  await page.setInputFiles('#validation-file', broken);
  const error = page.locator('.validation-drop .error');
  await error.waitFor({ timeout: 20000 });
  assert.match(await error.innerText(), /^broken\.json: .*malformed JSON.*; nothing was loaded$/);
  assert.equal(await page.locator('#validation-scatter-view').count(), 0);

  // The page still works: a knob moves and the chart follows.
  const row = page.locator('[data-knob="memory_block_read_cost"]');
  await row.locator('input[type="number"]').fill('0.5');
  await row.locator('input[type="number"]').press('Enter');
  await page.waitForFunction(() => location.hash.includes('mbrc=0.5'));
  assert.equal(await row.locator('input[type="range"]').getAttribute('aria-valuetext'), '0.5');

  // A good report, then another kind of file: the error names it, the scatter stays.
  await page.setInputFiles('#validation-file', REPORT);
  await marks(page).first().waitFor({ timeout: 20000 });
  assert.equal(await error.count(), 0);
  const calibration = join(dirname(fileURLToPath(import.meta.url)), '../../static/calibration/this-ci-machine.json');
  await page.setInputFiles('#validation-file', calibration);
  await error.waitFor();
  assert.match(await error.innerText(), /^this-ci-machine\.json: .*not a costlab validation report; the report on show is unchanged$/);
  assert.equal(await marks(page).count(), plans.length);
  assert.match(await page.locator('.validation-header').innerText(), /^pg15\.json: /);

  // A report dropped on the loader replaces the one on show and clears the message.
  await page.locator('.validation-drop').evaluate((el, text) => {
    const files = new DataTransfer();
    files.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
    el.dispatchEvent(new DragEvent('drop', { dataTransfer: files, bubbles: true, cancelable: true }));
  }, readFileSync(join(docs, 'pg18.json'), 'utf8'));
  await page.waitForFunction(() => document.querySelector('.validation-header')?.textContent.startsWith('dropped.json: PostgreSQL 18'));
  assert.equal(await error.count(), 0);
  const pg18 = JSON.parse(readFileSync(join(docs, 'pg18.json'), 'utf8'));
  assert.equal(await marks(page).count(), pg18.queries.flatMap((q) => q.plans).length);
  assert.equal(await page.locator('#panic').isHidden(), true, 'the panic box is showing');
  assert.deepEqual(problems, []);
});
