// Shared set-up for the end-to-end tests: one headless Chromium from Debian's package,
// a fresh profile per run, and pages that record console errors and uncaught exceptions.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BASE_URL = process.env.COSTLAB_BASE_URL ?? 'http://127.0.0.1:8080/';
export const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), 'screenshots');
mkdirSync(SCREENSHOTS, { recursive: true });

export async function launch() {
  // Playwright gives every launch a fresh temporary profile. The closed network refuses
  // Chromium's background connections; these flags stop it trying.
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Opens `path` and collects every console error and page exception into `problems`. */
export async function open(browser, path = '', viewport = { width: 1280, height: 900 }) {
  const page = await browser.newPage({ viewport, deviceScaleFactor: 1 });
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`exception: ${err.message}`));
  await page.goto(new URL(path, BASE_URL).href);
  return { page, problems };
}
