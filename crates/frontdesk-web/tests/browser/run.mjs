// The browser host's scenarios, each on both revisions, in Debian's Chromium
// driven by playwright-core. Run by crates/frontdesk-web/tests/it/browser.rs,
// which passes the settings (see harness.mjs); FRONTDESK_SCENARIOS=name,name
// runs only those. Prints one line per scenario and `N passed, N failed`.

import { everyField } from './fields.mjs';
import { hostile, protections } from './hostile.mjs';
import { bookReturn, cancel, consent, decline, escape, keyboard, queue, toolArguments } from './lab.mjs';
import { launchBrowser, settings } from './harness.mjs';
import { oneTimeOpen } from './open.mjs';

const SCENARIOS = { bookReturn, decline, cancel, consent, escape, queue, keyboard, toolArguments, everyField, hostile, protections, oneTimeOpen };
const REVISIONS = ['2025-11-25', '2026-07-28'];

const only = settings.only.split(',').map((s) => s.trim()).filter(Boolean);
const browser = await launchBrowser();
let passed = 0;
let failed = 0;
try {
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    if (only.length > 0 && !only.includes(name)) continue;
    for (const revision of REVISIONS) {
      const started = Date.now();
      try {
        await scenario(browser, revision);
        passed += 1;
        console.log(`ok     ${name} ${revision} (${Date.now() - started} ms)`);
      } catch (error) {
        failed += 1;
        console.log(`FAILED ${name} ${revision} (${Date.now() - started} ms)\n  ${String(error.stack || error).replaceAll('\n', '\n  ')}`);
      }
    }
  }
} finally {
  await browser.close();
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
