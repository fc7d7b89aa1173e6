// Opening the page (issue 24, row 15): `frontdesk lab --web` starts the browser
// with a one-time address (`/open/CODE`), not the page's address with its launch
// secret, since every local user can read a command line. The "browser" here is a
// script ($BROWSER) that records the address it was given; Chromium then opens
// that address as a browser would: it lands on the page, and the same address
// opens nothing a second time.

import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, closePage, shown, startHost, until } from './harness.mjs';

export async function oneTimeOpen(browser, revision) {
  const dir = mkdtempSync(join(tmpdir(), 'frontdesk-open-'));
  const record = join(dir, 'opened');
  const script = join(dir, 'browser.sh');
  writeFileSync(script, `#!/bin/sh\nprintf '%s' "$1" > '${record}.tmp' && mv '${record}.tmp' '${record}'\n`);
  chmodSync(script, 0o755);
  const host = await startHost(['lab', '--web', '--protocol', revision], {
    BROWSER: script,
    DISPLAY: '',
    WAYLAND_DISPLAY: '',
  });
  const page = await browser.context.newPage();
  try {
    await until('the browser to be started', () => existsSync(record));
    const opened = readFileSync(record, 'utf8');
    const secret = /\/([0-9a-f]{64})\/$/.exec(host.url)[1];
    check(!opened.includes(secret), `the browser was given the launch secret: ${opened}`);
    check(opened.startsWith(`${host.origin}/open/`), `a one-time address: ${opened}`);

    const first = await page.goto(opened);
    check(first.status() === 200, `the one-time address leads to the page (${first.status()})`);
    check(page.url() === host.url, `the browser is on the page (${page.url()})`);
    await shown(page.getByText(`protocol ${revision}`), 'the page');

    const again = await page.goto(opened);
    check(again.status() === 404, `the one-time address works once (${again.status()})`);
    check((await page.textContent('body')).includes('works once'), 'the refusal says why');
    check(!(await page.content()).includes('frontdesk lab'), 'nothing of the page is shown');
  } finally {
    await closePage(page);
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
