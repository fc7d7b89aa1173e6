// What every browser scenario needs: the settings the Rust test passes, a host
// process started like a person starts it (`frontdesk lab --web --no-open`), one
// Chromium with a fresh profile, and small waiting and checking helpers.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (the Rust test sets it: cargo test -p frontdesk-web --test it browser)`);
  return value;
}

export const settings = {
  frontdesk: required('FRONTDESK_BIN'),
  hostile: required('FRONTDESK_HOSTILE_BIN'),
  playwright: required('FRONTDESK_PLAYWRIGHT'),
  axe: required('FRONTDESK_AXE'),
  chromium: process.env.CHROMIUM || '/usr/bin/chromium',
  screenshots: required('FRONTDESK_SCREENSHOTS'),
  only: process.env.FRONTDESK_SCENARIOS || '',
};

// Chromium as the project runs it here: no background traffic, no sandbox (root).
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser() {
  const { chromium } = createRequire(import.meta.url)(settings.playwright);
  const profile = mkdtempSync(join(tmpdir(), 'frontdesk-web-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: settings.chromium,
    headless: true,
    args: ARGS,
    locale: 'en-US',
    viewport: { width: 1280, height: 900 },
  });
  // No single step may wait longer than this (a scenario fails instead of hanging).
  context.setDefaultTimeout(10000);
  // "Copy as JSON" writes to the clipboard; the tests read it back.
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Close a scenario's page without ever hanging the run: Chromium can stall a
// close that races a navigation's commit (seen once in 20 runs, for minutes),
// and `page.close` has no timeout of its own. A page still open after 10 s is
// left to the browser's own close at the end.
export async function closePage(page) {
  let timer;
  const stalled = new Promise((resolve) => { timer = setTimeout(() => resolve('stalled'), 10000); });
  const outcome = await Promise.race([page.close().then(() => 'closed'), stalled]).catch(() => 'closed');
  clearTimeout(timer);
  if (outcome === 'stalled') console.log('note   a page did not close within 10 s; left to the browser');
}

// Start `frontdesk ARGS…` (with `env` added) and read the page's address from its
// stderr.
export async function startHost(args, env = {}) {
  const child = spawn(settings.frontdesk, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, RUST_LOG: 'warn', ...env },
  });
  let log = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });
  const exited = new Promise((done) => child.on('exit', (code, signal) => done({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address within 20 s from frontdesk ${args.join(' ')}:\n${log}`)), 20000);
    const look = () => {
      const match = /the page is at (http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{64}\/)/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stderr.on('data', look);
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`frontdesk ${args.join(' ')} exited (${code}):\n${log}`));
    });
  });
  return {
    url,
    origin: new URL(url).origin,
    log: () => log,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export function sleep(ms) {
  return new Promise((done) => setTimeout(done, ms));
}

export function check(condition, message) {
  if (!condition) throw new Error(message);
}

// Poll `probe` until it returns something truthy.
export async function until(what, probe, timeout = 10000) {
  const end = Date.now() + timeout;
  let last = null;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${last.message.split('\n')[0]}` : ''}`);
    }
    await sleep(50);
  }
}

export async function shown(locator, what, timeout = 10000) {
  try {
    await locator.first().waitFor({ state: 'visible', timeout });
  } catch (error) {
    throw new Error(`${what} was never shown (${error.message.split('\n')[0]})`);
  }
}

export function screenshotPath(name) {
  mkdirSync(settings.screenshots, { recursive: true });
  return join(settings.screenshots, `${name}.png`);
}

// Press Tab until the element matching `selector` has the focus (keyboard only).
// The page must have finished loading: wait for something only it shows first.
export async function tabTo(page, selector, limit = 40) {
  for (let i = 0; i < limit; i += 1) {
    const there = await page.evaluate((s) => document.activeElement && document.activeElement.matches(s), selector);
    if (there) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

// axe-core on the page as it is now: every violation fails, listed by rule and
// element. Injected through the debugger protocol (not a <script>), so the page's
// own Content-Security-Policy stays as strict as it is.
let axeSource = null;
export async function axeCheck(page, state) {
  if (!axeSource) axeSource = readFileSync(settings.axe, 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  check(violations.length === 0, `axe-core found ${violations.length} violation(s) on ${state}:\n  ${violations.join('\n  ')}`);
  return state;
}

// The same page in light and dark, at 1280 and 400 pixels wide, saved as
// NAME-{light,dark}-{1280,400}.png (full page); the viewport is put back after.
export async function screenshots(page, name) {
  const before = page.viewportSize();
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 400]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: screenshotPath(`${name}-${scheme}-${width}`), fullPage: width === 400 });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (before) await page.setViewportSize(before);
}
