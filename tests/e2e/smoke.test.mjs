// The release build loads, draws its chart, reacts to the slider, and never panics.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launch, open, SCREENSHOTS } from './browser.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('page loads, chart changes when the slider moves, no errors', async () => {
  const { page, problems } = await open(browser);
  const canvas = page.locator('canvas').first();
  await canvas.waitFor({ state: 'visible', timeout: 20000 });
  // Give the first draw a frame to land.
  await page.waitForTimeout(300);
  const before = await canvas.screenshot();
  await page.screenshot({ path: join(SCREENSHOTS, 'playground-1280.png') });

  const slider = page.locator('[data-knob="memory_block_read_cost"] input[type="range"]');
  await slider.focus();
  for (let i = 0; i < 150; i++) await page.keyboard.press('ArrowLeft');
  await page.waitForTimeout(300);
  const after = await canvas.screenshot();

  assert.notDeepEqual(after, before, 'the chart looks the same after moving the slider');
  assert.equal(await page.locator('#panic').isHidden(), true, 'the panic box is showing');
  assert.deepEqual(problems, []);
});

test('a rejected number shows a message and keeps the last valid value', async () => {
  const { page, problems } = await open(browser);
  const row = page.locator('[data-knob="memory_block_read_cost"]');
  const number = row.locator('input[type="number"]');
  await number.waitFor();
  await number.fill('-3');
  await number.press('Enter');
  await row.locator('.error').waitFor({ timeout: 5000 });
  assert.match(await row.locator('.error').innerText(), /outside the allowed range/);
  assert.equal(await row.locator('input[type="range"]').getAttribute('aria-valuetext'), '1');
  await number.fill('0.5');
  await number.press('Enter');
  await row.locator('.error').waitFor({ state: 'detached', timeout: 5000 });
  assert.equal(await row.locator('input[type="range"]').getAttribute('aria-valuetext'), '0.5');
  assert.deepEqual(problems, []);
});
