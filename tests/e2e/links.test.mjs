// Scenarios in links: the URL follows edits, a link reopens the same view, bad links keep
// what they can, and the back button steps through meaningful changes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, open, BASE_URL } from './browser.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

async function setKnob(page, name, value) {
  const input = page.locator(`[data-knob="${name}"] input[type="number"]`);
  await input.fill(String(value));
  await input.press('Enter');
}

async function knobValue(page, name) {
  return page.locator(`[data-knob="${name}"] input[type="range"]`).getAttribute('aria-valuetext');
}

async function switchPoints(page) {
  return page.locator('.switch-point strong').allInnerTexts();
}

test('three knobs changed, the link reopens the same values and switch point', async () => {
  const { page, problems } = await open(browser);
  await page.locator('[data-knob="memory_block_read_cost"]').waitFor();
  await setKnob(page, 'memory_block_read_cost', 0.5);
  await setKnob(page, 'row_evaluate_cost', 0.15);
  await setKnob(page, 'io_block_read_cost', 2);
  // Drags and typed values reach the address bar after a 300 ms debounce.
  await page.waitForFunction(() => location.hash.includes('iobrc=2'), null, { timeout: 5000 });
  const link = page.url();
  assert.match(link, /#v=1&/);
  assert.ok(link.length < 300, `link is ${link.length} characters`);
  const switches = await switchPoints(page);
  assert.equal(switches.length > 0, true);

  const second = await open(browser, link.slice(link.indexOf('#')));
  await second.page.locator('[data-knob="memory_block_read_cost"]').waitFor();
  assert.equal(await knobValue(second.page, 'memory_block_read_cost'), '0.5');
  assert.equal(await knobValue(second.page, 'row_evaluate_cost'), '0.15');
  assert.equal(await knobValue(second.page, 'io_block_read_cost'), '2');
  assert.deepEqual(await switchPoints(second.page), switches);
  assert.deepEqual(problems, []);
  assert.deepEqual(second.problems, []);
});

test('a corrupted link shows a banner naming the bad value and keeps the rest', async () => {
  const { page, problems } = await open(browser, '#v=1&e=both&mbrc=-4&rpc=20.4&view=nonsense');
  const banner = page.locator('.link-problems');
  await banner.waitFor({ timeout: 10000 });
  const text = await banner.innerText();
  assert.match(text, /memory_block_read_cost/);
  assert.match(text, /view/);
  assert.equal(await knobValue(page, 'random_page_cost'), '20.4');
  assert.equal(await knobValue(page, 'memory_block_read_cost'), '1');
  assert.equal(await page.locator('canvas#cost-pg').count(), 1, 'both engines kept');
  // Text from the link is shown as text, never as markup.
  const hostile = await open(browser, '#v=1&%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E=1');
  await hostile.page.locator('.link-problems').waitFor();
  assert.equal(await hostile.page.locator('.link-problems img').count(), 0);
  assert.deepEqual(problems, []);
});

test('links of every released format version open', async () => {
  // Format 1 (the first release). Add each new version's links here; never remove any.
  const golden = [
    ['#v=1', { memory_block_read_cost: '1', row_evaluate_cost: '0.2' }],
    ['#v=1&my=8.0&iobrc=2', { memory_block_read_cost: '0.25', io_block_read_cost: '2' }],
    ['#v=1&e=both&rpc=20.4&mbrc=0.5&w=t1:1,25&log=1', { random_page_cost: '20.4', memory_block_read_cost: '0.5' }],
  ];
  for (const [hash, want] of golden) {
    const { page, problems } = await open(browser, hash);
    await page.locator('[data-knob="memory_block_read_cost"]').waitFor();
    for (const [name, value] of Object.entries(want)) {
      assert.equal(await knobValue(page, name), value, `${hash}: ${name}`);
    }
    assert.equal(await page.locator('.link-problems').count(), 0, hash);
    assert.deepEqual(problems, [], hash);
  }
});

test('the back button steps back through meaningful changes', async () => {
  const { page } = await open(browser);
  await page.locator('#engines').waitFor();
  await page.selectOption('#engines', 'both');
  await page.waitForFunction(() => location.hash.includes('e=both'));
  await page.selectOption('#engines', 'postgres');
  await page.waitForFunction(() => location.hash.includes('e=pg'));
  await page.goBack();
  await page.waitForFunction(() => location.hash.includes('e=both'));
  assert.equal(await page.locator('#engines').inputValue(), 'both');
  assert.equal(await page.locator('canvas#cost-mysql').count(), 1);
});

test('copy embed code, and the snippet renders in a blank page', async () => {
  const { page } = await open(browser, '#v=1&mbrc=0.5');
  await page.locator('.share details summary').click();
  const snippet = await page.locator('#embed-code').inputValue();
  assert.match(snippet, /<iframe src="[^"]*embed=1/);
  const blank = await browser.newPage();
  await blank.goto(new URL('static/README.md', BASE_URL).href);
  await blank.setContent(`<!doctype html><body><h1>Doc</h1>${snippet}</body>`);
  const frame = blank.frameLocator('iframe');
  await frame.locator('canvas').waitFor({ timeout: 20000 });
  // The iframe takes the height the embed reports.
  await blank.waitForFunction(() => parseInt(document.querySelector('iframe').style.height) > 200, null, { timeout: 10000 });
});

test('a custom machine travels in the link', async () => {
  const { page, problems } = await open(browser);
  await page.locator('.machine-editor summary').click();
  await page.locator('#m-seq').fill('123');
  await page.locator('#m-seq').press('Enter');
  await page.waitForFunction(() => location.hash.includes('m=custom') && location.hash.includes('p.seq=123'));
  const link = page.url();
  assert.ok(link.length < 2000, `link is ${link.length} characters`);
  const second = await open(browser, link.slice(link.indexOf('#')));
  await second.page.locator('.machine-source').waitFor();
  assert.match(await second.page.locator('.machine-source').innerText(), /123 MB\/s sequential/);
  assert.equal(await second.page.locator('#machine').inputValue(), 'custom');
  assert.deepEqual(problems, []);
  assert.deepEqual(second.problems, []);
});

test('the example documentation page renders both embeds, each sized to its content', async () => {
  const { page, problems } = await open(browser, 'static/docs-example.html');
  for (const id of ['#embed-rpc', '#embed-mbrc']) {
    const frame = page.frameLocator(id);
    await frame.locator('canvas').waitFor({ timeout: 20000 });
    await frame.locator('.open-full a').waitFor();
    assert.match(await frame.locator('.open-full a').getAttribute('href'), /#v=1/);
    // The host page set the height the embed reported (not the 480 px it started with).
    await page.waitForFunction(
      (sel) => {
        const f = document.querySelector(sel);
        const h = parseInt(f.style.height);
        return h > 200 && Math.abs(h - f.contentDocument.documentElement.scrollHeight) <= 2;
      },
      id,
      { timeout: 10000 },
    );
  }
  assert.equal(await page.frameLocator('#embed-rpc').locator('[data-knob="random_page_cost"]').count(), 1);
  assert.deepEqual(problems, []);
});
