// The playground as a user meets it: profiles change the time chart, themes switch, the
// page fits phones and wide screens, exports carry the data, and the page stays live.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, open, SCREENSHOTS, cli, readShortNumber } from './browser.mjs';
import { percentiles, split } from './tables.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const frame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

test('picking a device profile changes the time chart', async () => {
  const { page, problems } = await open(browser);
  const time = page.locator('canvas#time-mysql');
  await time.waitFor();
  await frame(page);
  const before = await time.screenshot();
  const regretBefore = await page.locator('.regret').getAttribute('data-total');
  await page.selectOption('#machine', 'wl8737-disk');
  await frame(page);
  await frame(page);
  const after = await time.screenshot();
  assert.notDeepEqual(after, before, 'the time chart did not change');
  assert.notEqual(await page.locator('.regret').getAttribute('data-total'), regretBefore);
  assert.match(await page.locator('.machine-source').innerText(), /1 GB buffer pool|disk/i);
  assert.deepEqual(problems, []);
});

for (const width of [375, 1440]) {
  test(`no horizontal overflow at ${width} px`, async () => {
    const { page, problems } = await open(browser, '#v=1&e=both', { width, height: 900 });
    await page.locator('canvas#cost-pg').waitFor();
    await frame(page);
    const { scroll, client } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    assert.ok(scroll <= client, `page is ${scroll} px wide in a ${client} px window`);
    await page.screenshot({ path: join(SCREENSHOTS, `playground-${width}.png`), fullPage: width === 375 });
    assert.deepEqual(problems, []);
  });
}

test('switching themes recolours the page and the charts', async () => {
  const { page, problems } = await open(browser);
  const cost = page.locator('canvas#cost-mysql');
  await cost.waitFor();
  await page.selectOption('#theme', 'light');
  await frame(page);
  const light = await cost.screenshot();
  const lightBg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.selectOption('#theme', 'dark');
  await frame(page);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  const darkBg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.notEqual(darkBg, lightBg);
  assert.notDeepEqual(await cost.screenshot(), light);
  await page.screenshot({ path: join(SCREENSHOTS, 'playground-dark.png') });
  assert.deepEqual(problems, []);
});

test('CSV export carries the header and one row per sweep point', async () => {
  const { page, problems } = await open(browser);
  await page.locator('#cost-mysql-view .export-csv').waitFor();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('#cost-mysql-view .export-csv').click(),
  ]);
  assert.equal(download.suggestedFilename(), 'costlab-cost-mysql.csv');
  const text = readFileSync(await download.path(), 'utf8');
  const lines = text.trim().split('\n');
  assert.equal(lines[0], 'rows selected (%),range scan on k7,table scan,chosen plan');
  assert.equal(lines.length, 1 + 401);
  assert.equal(lines[1].split(',')[0], '0');
  assert.equal(lines[401].split(',')[0], '20');
  assert.deepEqual(problems, []);
});

test('the flip map marks the current and the fitted constant', async () => {
  const { page, problems } = await open(browser, '#v=1&view=flip');
  await page.locator('canvas#flip-mysql').waitFor({ timeout: 20000 });
  const fitted = Number(await page.locator('.fit .fitted').innerText());
  // WL#8737 chose 0.2 over 0.5 on this server; the fit must fall on the same side.
  assert.ok(fitted > 0 && fitted < 0.5, `fitted ${fitted}`);
  assert.deepEqual(problems, []);
});

test('PostgreSQL\'s flip map opens on random_page_cost, above the other charts', async () => {
  // The link names no flip constant; the default one is MySQL's, which PostgreSQL has not.
  const { page, problems } = await open(browser, '#v=1&e=pg&view=flip');
  await page.locator('canvas#flip-pg').waitFor({ timeout: 20000 });
  assert.equal(await page.locator('#flip-knob').inputValue(), 'random_page_cost');
  const top = (id) => page.locator(`canvas#${id}`).evaluate((c) => c.getBoundingClientRect().top);
  assert.ok(await top('flip-pg') < await top('cost-pg'), 'the chosen view comes first');
  assert.ok(await top('cost-pg') < await top('time-pg'));
  // The time view puts the time chart first, and the link keeps the choice.
  await page.locator('input[name="view"][value="time"]').check();
  await frame(page);
  assert.ok(await top('time-pg') < await top('cost-pg'));
  assert.match(await page.evaluate(() => location.hash), /view=time/);
  assert.deepEqual(problems, []);
});

test('keyboard reaches and labels every knob', async () => {
  const { page } = await open(browser);
  await page.locator('[data-knob]').first().waitFor();
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll('input, select, button')]
      .filter((el) => !el.labels?.length && !el.getAttribute('aria-label') && !el.textContent.trim())
      .map((el) => el.outerHTML.slice(0, 80)),
  );
  assert.deepEqual(unlabelled, []);
  await page.locator('#knob-mbrc').focus();
  await page.keyboard.press('ArrowLeft');
  await frame(page);
  assert.notEqual(await page.locator('#knob-mbrc').getAttribute('aria-valuetext'), '1');
});

/** Navigation to the first drawn chart (`costlab-drawn`), over `n` fresh loads, each left
 *  alone for a second before it is read. A locator's first query evaluates Playwright's
 *  injected script in the page (Chromium's trace: an EvaluateScript task of 20 to 30 ms
 *  between the first frame and the charts' drawing), which a reader's browser never runs;
 *  `page.evaluate` after the wait reads the mark without it. */
/** Fresh loads: when the first chart is drawn, and when the whole page is (the constants
 *  and share panels, below the first screen, are built in the task after the charts). */
async function firstRenders(n) {
  const loads = [];
  for (let i = 0; i < n; i++) {
    const { page, problems } = await open(browser);
    await page.waitForTimeout(1000);
    loads.push(await page.evaluate(() => {
      const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
      return { drawn: at('costlab-drawn'), complete: at('costlab-complete') };
    }));
    assert.deepEqual(problems, []);
    await page.close();
  }
  return loads;
}

test('measure: input-to-redraw time and first render (printed, not asserted)', async () => {
  const loads = await firstRenders(5);
  const drawn = loads.map((l) => l.drawn);
  const complete = loads.map((l) => l.complete);
  assert.ok(drawn.every(Number.isFinite), `a load drew no chart: ${drawn}`);
  assert.ok(complete.every(Number.isFinite), `a load never built its constants panel: ${complete}`);
  assert.ok(loads.every((l) => l.complete >= l.drawn), `the constants panel came before the charts: ${JSON.stringify(loads)}`);
  const median = (xs) => [...xs].sort((a, b) => a - b)[2];
  const list = (xs) => xs.map((x) => x.toFixed(0)).join(', ');
  console.log(`# measure t1 view first render, 5 fresh loads: median ${median(drawn).toFixed(0)} ms after navigation (${list(drawn)} ms); the whole page, constants panels included, median ${median(complete).toFixed(0)} ms (${list(complete)} ms)`);
  const { page, problems } = await open(browser);
  const slider = page.locator('#knob-mbrc');
  await slider.waitFor();
  await frame(page);
  // A second, as a reader looks at the chart before moving a knob (the browser finishes
  // optimising the first render's code in the background; the DBT3 measure waits too).
  // The first input still runs code for the first time: its figure is printed apart.
  await page.waitForTimeout(1000);
  await slider.focus();
  // Issue 17 asks for three runs of 60 inputs, each printed.
  for (const run of [1, 2, 3]) {
    const samples = [];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press(i % 2 ? 'ArrowLeft' : 'ArrowRight');
      await frame(page);
      const ms = await page.evaluate(() => {
        const inputs = performance.getEntriesByName('costlab-input');
        const last = inputs[inputs.length - 1];
        const after = (name) => performance.getEntriesByName(name).filter((d) => d.startTime >= last.startTime);
        const drawn = after('costlab-drawn');
        const end = drawn.length ? drawn[drawn.length - 1].startTime : NaN;
        const computed = after('costlab-computed');
        const mid = computed.length ? computed[computed.length - 1].startTime : NaN;
        performance.clearMarks();
        return { total: end - last.startTime, compute: mid - last.startTime, draw: end - mid };
      });
      samples.push(ms);
    }
    const total = percentiles(samples, 'total');
    assert.ok(total.n >= 50, `only ${total.n} redraws measured`);
    // Where the time goes: input to curves computed, then to both charts drawn.
    const parts = split(samples, ['compute', 'draw']);
    const firstInput = run === 1 ? `: the first input ${samples[0].total.toFixed(1)} ms` : '';
    console.log(`# measure t1 view (MySQL, cost + time charts), run ${run} of 3${firstInput}; inputs from 1 s later: input to redraw median ${total.median.toFixed(1)} ms, p95 ${total.p95.toFixed(1)} ms over ${total.n} inputs (median/p95 ms: ${parts})`);
  }
  assert.deepEqual(problems, []);
});

test('moving random_page_cost moves the switch point to where the core puts it', async () => {
  const { execFileSync } = await import('node:child_process');
  const core = (hash) => JSON.parse(execFileSync(process.env.COSTLAB_CLI, ['url', 'decode', hash, '--switches']))
    .switches.PostgreSQL.map((s) => {
      const p = s.fraction * 100;
      return `${p >= 10 ? p.toFixed(2) : p >= 1 ? p.toFixed(3) : p.toFixed(4)}%`;
    });
  const { page, problems } = await open(browser, '#v=1&e=pg');
  await page.locator('.switch-point strong').first().waitFor();
  const before = await page.locator('.switch-point strong').allInnerTexts();
  assert.deepEqual(before, core('#v=1&e=pg'));
  const input = page.locator('[data-knob="random_page_cost"] input[type="number"]');
  await input.fill('20.4');
  await input.press('Enter');
  await page.waitForFunction(() => location.hash.includes('rpc=20.4'));
  const after = await page.locator('.switch-point strong').allInnerTexts();
  assert.notDeepEqual(after, before);
  assert.deepEqual(after, core('#v=1&e=pg&rpc=20.4'));
  assert.deepEqual(problems, []);
});

test('a calibration file becomes the machine; a broken one changes nothing', async () => {
  const { writeFileSync, mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { dirname } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const sample = join(dirname(fileURLToPath(import.meta.url)), '../../static/calibration/this-ci-machine.json');
  const { page, problems } = await open(browser);
  await page.locator('#calibration-file').waitFor();

  const dir = mkdtempSync(join(tmpdir(), 'costlab-cal-'));
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, readFileSync(sample, 'utf8').slice(0, 200));
  await page.setInputFiles('#calibration-file', broken);
  await page.locator('.calibration-drop .error').waitFor();
  assert.match(await page.locator('.calibration-drop .error').innerText(), /broken\.json: .*machine is unchanged/);
  assert.equal(await page.locator('#machine').inputValue(), 'wl8737-memory');

  await page.setInputFiles('#calibration-file', sample);
  await page.locator('.calibration-summary').waitFor();
  assert.match(await page.locator('.calibration-summary').innerText(), /sequential read: .* MB\/s \[/);
  assert.equal(await page.locator('#machine').inputValue(), 'custom');
  assert.match(await page.locator('.machine-source').innerText(), /measured/);
  await page.waitForFunction(() => location.hash.includes('m=custom'));
  assert.deepEqual(problems, []);
});

test('a phone shows the chart first, then the knobs; the legend sits under the plot', async () => {
  const { page, problems } = await open(browser, '#v=1&e=both', { width: 375, height: 800 });
  await page.locator('canvas#cost-mysql').waitFor();
  await frame(page);
  await page.screenshot({ path: join(SCREENSHOTS, 'playground-375-top.png') });
  const top = (sel) => page.locator(sel).first().evaluate((el) => el.getBoundingClientRect().top);
  const chartTop = await top('canvas');
  const sliderTop = await top('input[type="range"]');
  assert.ok(chartTop < sliderTop, `the first chart starts at ${chartTop} px, the first slider at ${sliderTop} px`);
  assert.ok(chartTop < 800, `the first chart starts below the first screen (${chartTop} px)`);
  // The legend is text under the canvas, never drawn over the curves.
  for (const id of ['cost-mysql', 'time-mysql', 'cost-pg', 'time-pg']) {
    const { canvasBottom, legendTop, entries } = await page.locator(`#${id}-view`).evaluate((fig) => ({
      canvasBottom: fig.querySelector('canvas').getBoundingClientRect().bottom,
      legendTop: fig.querySelector('.legend').getBoundingClientRect().top,
      entries: fig.querySelectorAll('.legend li').length,
    }));
    assert.ok(entries >= 2, `${id}: ${entries} legend entries`);
    assert.ok(legendTop >= canvasBottom, `${id}: legend at ${legendTop} px over a canvas ending at ${canvasBottom} px`);
  }
  assert.deepEqual(problems, []);
});

/** The readout under the pointer at a fraction of the canvas width: x and each series. */
async function readoutAt(page, id, fx) {
  const canvas = page.locator(`canvas#${id}`);
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + box.width * fx, box.y + box.height * 0.5);
  const out = page.locator(`#${id}-view .readout`);
  await page.waitForFunction((el) => el.textContent.includes(':'), await out.elementHandle());
  const text = await out.innerText();
  const [head, body] = [text.slice(0, text.indexOf(': ')), text.slice(text.indexOf(': ') + 2)];
  const series = Object.fromEntries(body.split(' · ').map((part) => {
    const i = part.lastIndexOf(' ');
    return [part.slice(0, i), readShortNumber(part.slice(i + 1))];
  }));
  return { x: Number(head.split(' = ')[1]), series };
}

test('the t1 charts show what costlab simulate computes: legend, costs and times', async () => {
  const { page, problems } = await open(browser, '#v=1&e=both', { width: 1440, height: 900 });
  await page.locator('canvas#time-pg').waitFor();
  await frame(page);
  for (const [id, engine] of [['mysql', 'mysql'], ['pg', 'postgres']]) {
    for (const fx of [0.3, 0.55, 0.8]) {
      for (const chart of ['cost', 'time']) {
        const { x, series } = await readoutAt(page, `${chart}-${id}`, fx);
        assert.ok(x > 0 && x <= 20, `${chart}-${id}: x ${x}`);
        const report = cli(['simulate', '--workload', 't1', '--engine', engine, '--profile', 'wl8737-memory',
          '--fraction', String(x / 100), '--json']);
        const legend = await page.locator(`#${chart}-${id}-view .legend .label`).allInnerTexts();
        for (const c of report.candidates) {
          assert.ok(legend.includes(c.label), `${chart}-${id}: no legend entry for ${c.label} in ${legend}`);
          const shown = series[c.label];
          assert.ok(shown, `${chart}-${id} at ${x} %: the readout lacks ${c.label}`);
          const want = chart === 'cost' ? c.cost : c.seconds;
          assert.ok(Math.abs(shown.value - want) <= shown.half * 1.0001 + 1e-12,
            `${chart}-${id} at ${x} %: ${c.label} shows ${shown.value}, the core computes ${want}`);
        }
        const chosen = report.candidates.find((c) => c.key === report.chosen).label;
        assert.ok(legend.includes(chart === 'cost' ? 'chosen plan' : 'fastest plan'));
        assert.ok(Object.keys(series).includes(chosen));
      }
    }
  }
  await page.mouse.move(0, 0);
  assert.equal(await page.locator('.error').count(), 0);
  assert.deepEqual(problems, []);
});
