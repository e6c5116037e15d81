// Shared set-up for the end-to-end tests: one headless Chromium from Debian's package,
// a fresh profile per run, and pages that record console errors and uncaught exceptions.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';

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

/** Runs the command line (`COSTLAB_CLI`, set by `cargo xtask e2e`) and parses its JSON. */
export function cli(args) {
  if (!process.env.COSTLAB_CLI) throw new Error('COSTLAB_CLI is not set: run the tests with `cargo xtask e2e`');
  return JSON.parse(execFileSync(process.env.COSTLAB_CLI, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** `model::seconds` of the page: how a time is written in the tables and the totals. */
export function seconds(s) {
  if (!Number.isFinite(s)) return 'n/a';
  if (s >= 7200) return `${(s / 3600).toFixed(1)} h`;
  if (s >= 120) return `${(s / 60).toFixed(0)} min`;
  if (s >= 10) return `${s.toFixed(0)} s`;
  if (s >= 0.1) return `${s.toFixed(2)} s`;
  return `${(s * 1000).toFixed(1)} ms`;
}

/** A number as `chart::short_number` writes it ("1.20M", "15.0k", "0.8336", "8.3e-4"),
 *  back to a value and the half-unit of its last digit (how far the value may be from it). */
export function readShortNumber(text) {
  const m = /^(-?[\d.]+)(?:e(-?\d+))?([kMG]?)$/.exec(text.trim());
  if (!m) throw new Error(`not a chart number: ${text}`);
  const mult = { '': 1, k: 1e3, M: 1e6, G: 1e9 }[m[3]];
  const exp = m[2] ? 10 ** Number(m[2]) : 1;
  const decimals = (m[1].split('.')[1] ?? '').length;
  return { value: Number(m[1]) * exp * mult, half: 0.5 * 10 ** -decimals * exp * mult };
}
