import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { testTempDir } from './temp.js';

// playwright-core (a devDependency: the library only, it downloads no browser) drives Debian's
// chromium, which scripts/setup.sh installs. Loaded with Node's own resolution.
const require = createRequire(import.meta.url);

/** Debian's chromium. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for headless Chromium on these machines (root, no GPU, no network beyond the package
 * registries): without the background-networking ones Chromium keeps trying Google's hosts.
 */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** What a page did when opened. */
export interface OpenedPage {
  /** Console messages of type error, and uncaught page errors. */
  errors: string[];
  /** Every request that was not for the file itself (a self-contained page makes none). */
  requests: string[];
  /** Runs a function in the page and returns its result. */
  evaluate<T>(fn: () => T): Promise<T>;
  /** Screenshot of the whole page, or of the first element matching `selector`. */
  screenshot(path: string, selector?: string): Promise<void>;
}

/**
 * Opens a local HTML file in real headless Chromium (a fresh profile, removed afterwards) and
 * hands the page to `use`; the browser is closed whatever happens.
 */
export async function withPageInChromium<T>(
  file: string,
  use: (page: OpenedPage) => Promise<T>,
  viewport = { width: 1300, height: 900 },
): Promise<T> {
  const { chromium } = require('playwright-core') as typeof import('playwright-core');
  const profile = await testTempDir('chromium');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
  });
  try {
    const page = await context.newPage();
    const url = pathToFileURL(file).href;
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
    page.on('request', (request) => {
      if (request.url() !== url) requests.push(request.url());
    });
    await page.goto(url, { waitUntil: 'load' });
    return await use({
      errors,
      requests,
      evaluate: (fn) => page.evaluate(fn),
      screenshot: async (path, selector) => {
        if (selector) await page.locator(selector).first().screenshot({ path });
        else await page.screenshot({ path, fullPage: true });
      },
    });
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}
