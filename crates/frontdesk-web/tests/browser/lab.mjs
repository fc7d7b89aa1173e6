// Scenarios against `frontdesk lab --web --no-open --protocol REV`, driven as a
// person would: by role and label, with the mouse or with the keyboard alone.

import { axeCheck, check, closePage, screenshotPath, screenshots, shown, startHost, tabTo, until } from './harness.mjs';

const button = (page, name) => page.getByRole('button', { name, exact: true });
const field = (page, role, name) => page.getByRole(role, { name, exact: true });
const formHeading = (page) => page.getByRole('heading', { name: /asks you to fill in a form$/ });
const linkHeading = (page) => page.getByRole('heading', { name: /asks you to open a link$/ });
const newestCall = (page) => page.locator('article.call').first();
const question = (page) => page.locator('#question');

// Start the lab, open its page (checking its CSP), run `steps` on it, and fail
// on script errors, CSP violations or failed requests. On failure the page is
// saved as a screenshot and its text printed, to see what the person saw.
async function withLab(browser, revision, name, steps) {
  const host = await startHost(['lab', '--web', '--no-open', '--protocol', revision]);
  const page = await browser.context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} for ${r.request().method()} ${r.url()}`);
  });
  try {
    const response = await page.goto(host.url);
    const csp = response.headers()['content-security-policy'] || '';
    check(csp.includes("script-src 'self'") && csp.includes("default-src 'none'"), `a strict CSP, got: ${csp}`);
    await shown(page.getByText(`protocol ${revision}`), `the connection on ${revision}`);
    await steps(page);
  } catch (error) {
    await page.screenshot({ path: screenshotPath(`failed-${name}-${revision}`), fullPage: true }).catch(() => {});
    const text = await page.locator('#question').innerText().catch(() => '(no page)');
    throw new Error(`${error.message}\n  the question on screen:\n    ${text.replaceAll('\n', '\n    ')}\n  the host said:\n${host.log()}`);
  } finally {
    await closePage(page);
    await host.stop();
  }
  check(problems.length === 0, `the page reported problems:\n${problems.join('\n')}`);
}

async function fillReturn(page, email) {
  await field(page, 'combobox', 'Reason').selectOption({ label: 'It arrived damaged' });
  await field(page, 'textbox', 'Pickup date').fill('2026-12-24');
  await field(page, 'textbox', 'Contact email').fill(email);
}

// The confirmation that follows the return form: one yes/no, answered in one
// step (its default, Yes, is the primary button).
async function confirmPickup(page, { axe = false } = {}) {
  await shown(question(page).getByText('Book a pickup of 1 box(es) on 2026-12-24 for order A-1001?'), 'the confirmation question');
  const yes = button(page, 'Yes');
  check((await yes.getAttribute('class')) === 'primary', 'Yes, the default, is the primary choice');
  check(await button(page, 'No').isVisible(), 'No is offered');
  check(await button(page, 'Decline').isVisible(), 'Decline is offered');
  if (axe) await axeCheck(page, 'the one-step confirmation');
  await yes.click();
}

const BOOKED =
  'Return booked for order A-1001: 1 box(es) collected on 2026-12-24 (It arrived damaged); the label goes to ann@example.com.';

export async function bookReturn(browser, revision) {
  return withLab(browser, revision, 'bookReturn', async (page) => {
    await axeCheck(page, 'the lab before any call');
    await button(page, 'Call book_return').click();
    await shown(formHeading(page), 'the return form');
    check(/^brightgrid \d+\.\d+\.\d+/.test(await formHeading(page).textContent()), 'the heading names the server and version');
    check(await question(page).getByText('For the call tools/call book_return').isVisible(), 'the form names its call');
    check((await page.locator('#q-message').textContent()) === 'Tell us about the return of order A-1001', 'the message is shown');
    const review = button(page, 'Review');
    check(await review.isEnabled(), 'Review is always reachable');
    check(await button(page, 'Decline').isVisible() && await button(page, 'Cancel').isVisible(), 'Decline and Cancel are shown');
    check((await field(page, 'spinbutton', 'Number of boxes').inputValue()) === '1', 'the default number of boxes is filled in');
    check(await field(page, 'textbox', 'Notes').isVisible(), 'Notes is a labelled text box');
    check(await question(page).getByText('a whole number from 1 to 3').isVisible(), 'the range is shown');
    await axeCheck(page, 'the return form');

    // Review with problems: nothing is sent, every problem is shown, the focus
    // goes to the first one, and the status says so.
    await review.click();
    await until('the focus on the first problem', () => page.evaluate(() => document.activeElement.id === 'f0'));
    await shown(question(page).getByText('Reason is required'), 'the first problem');
    await until('the status to say nothing was sent', async () => /Not sent: \d+ problems to fix/.test(await page.locator('#notice').textContent()));
    check((await field(page, 'combobox', 'Reason').getAttribute('aria-invalid')) === 'true', 'Reason is marked invalid');
    await axeCheck(page, 'the return form with its problems');
    await page.emulateMedia({ colorScheme: 'dark' });
    check(await page.evaluate(() => getComputedStyle(document.body).colorScheme === 'dark' || getComputedStyle(document.documentElement).colorScheme === 'dark'), 'dark mode follows prefers-color-scheme');
    await axeCheck(page, 'the return form with its problems, dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await fillReturn(page, 'ann@');
    const message = question(page).getByText('Contact email must be an email address like name@example.com');
    await shown(message, 'the form model’s message for the wrong email');
    const email = field(page, 'textbox', 'Contact email');
    check((await email.getAttribute('aria-invalid')) === 'true', 'the email field is marked invalid');
    await page.locator('#question').screenshot({ path: screenshotPath(`${revision}-form`) });
    if (revision === '2026-07-28') await screenshots(page, 'web-form');

    await email.fill('ann@example.com');
    await until('the email message to go', async () => !(await message.isVisible()));
    await review.click();
    await shown(page.getByRole('heading', { name: 'Review your answer before it is sent' }), 'the review step');
    const answer = await page.locator('dl.review').textContent();
    for (const text of ['It arrived damaged', '2026-12-24', 'ann@example.com', '(no answer)']) {
      check(answer.includes(text), `the review shows ${text}: ${answer}`);
    }
    await axeCheck(page, 'the review step');
    await page.locator('#question').screenshot({ path: screenshotPath(`${revision}-review`) });
    await button(page, 'Accept').click();
    await until('the status to say what was sent', async () => /^Sent to brightgrid \d+\.\d+\.\d+/.test(await page.locator('#notice').textContent()));

    await confirmPickup(page, { axe: true });
    if (revision === '2026-07-28') {
      // (the screenshot of the one-step question is taken by the keyboard scenario)
    }
    const call = newestCall(page);
    await shown(call.locator('.result-text').getByText(BOOKED), 'the booked result');
    await call.getByText('Result as JSON').click();
    const json = await call.locator('details.json pre').textContent();
    check(json.includes('"status": "booked"') && json.includes('"contactEmail": "ann@example.com"'), `the result's JSON: ${json}`);

    const explanation =
      revision === '2025-11-25'
        ? 'The server sent 2 elicitation/create requests (mode form)'
        : 'tools/call book_return was sent 3 times; no request ever came from the server.';
    await shown(call.getByText(explanation, { exact: false }), 'the lab’s explanation of the wire');
    const timeline = await call.locator('.timeline').textContent();
    check(timeline.includes(revision === '2025-11-25' ? 'elicitation/create (form)' : 'input_required (return)'), `the timeline: ${timeline}`);
    check(timeline.includes('"ann@example.com"'), 'the answer that travelled is in the timeline');
    check((await call.locator('.timeline time').count()) === (await call.locator('.timeline li').count()), 'every message has its time');
    await call.locator('.timeline summary').first().click();
    await shown(call.locator('.timeline pre').first(), 'a message pretty-printed on demand');
    await call.getByRole('button', { name: 'Copy as JSON' }).first().click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const first = JSON.parse(copied);
    check(first.method === 'tools/call' && first.params.name === 'book_return', `the copy is the message itself: ${copied}`);
    // Every timeline open: the page as a reader of the wire sees it.
    await page.evaluate(() => {
      for (const details of document.querySelectorAll('details')) details.open = true;
    });
    await axeCheck(page, 'the result with every timeline open');
    await call.screenshot({ path: screenshotPath(`${revision}-wire`) });
    if (revision === '2026-07-28') await screenshots(page, 'web-wire');

    // The same form again starts from the last answer, and says so (as the terminal does).
    await button(page, 'Call book_return').click();
    await shown(question(page).getByText('Filled in from your last answer to this form', { exact: false }), 'the remembered answer');
    check((await field(page, 'textbox', 'Contact email').inputValue()) === 'ann@example.com', 'the last email is filled in');
    await axeCheck(page, 'a form filled in from the last answer');
    await button(page, 'Cancel').click();
    await shown(newestCall(page).locator('.result-text').getByText('No return was booked: the question was dismissed.'), 'the cancelled result');
  });
}

// A tool's arguments are a form built from its input schema; what is typed there
// survives the page's refreshes and is what the tool is called with.
export async function toolArguments(browser, revision) {
  return withLab(browser, revision, 'toolArguments', async (page) => {
    const order = page.locator('form.tool').first().getByRole('textbox', { name: 'Order id', exact: true });
    check((await order.inputValue()) === 'A-1001', 'the lab’s preset fills the form');
    await order.fill('A-2002');
    await button(page, 'Call connect_store_account').click();
    await shown(linkHeading(page), 'a question (the page refreshed)');
    check((await order.inputValue()) === 'A-2002', 'what was typed survived the refresh');
    await button(page, 'Cancel').click();
    await shown(page.getByRole('heading', { name: 'No question is waiting' }), 'the question gone');
    await button(page, 'Call book_return').click();
    await shown(question(page).getByText('Tell us about the return of order A-2002'), 'the call used the typed argument');
    await button(page, 'Decline').click();
    await shown(newestCall(page).locator('.result-text').getByText('No return was booked: the person declined.'), 'the call declined');
  });
}

async function answerWith(browser, revision, choice, expected) {
  return withLab(browser, revision, 'answer', async (page) => {
    await button(page, 'Call book_return').click();
    await shown(formHeading(page), 'the return form');
    await button(page, choice).click();
    const call = newestCall(page);
    await shown(call.locator('.result-text').getByText(expected), `the result after ${choice}`);
    const timeline = await call.locator('.timeline').textContent();
    const action = choice === 'Decline' ? 'decline' : 'cancel';
    check(timeline.includes(`"action": "${action}"`), `the server was told ${action}: ${timeline}`);
  });
}

export const decline = (browser, revision) =>
  answerWith(browser, revision, 'Decline', 'No return was booked: the person declined.');

export const cancel = (browser, revision) =>
  answerWith(browser, revision, 'Cancel', 'No return was booked: the question was dismissed.');

export async function consent(browser, revision) {
  return withLab(browser, revision, 'consent', async (page) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await button(page, 'Call connect_store_account').click();
    await shown(linkHeading(page), 'the consent screen');
    check((await page.locator('#q-message').textContent()) === 'Sign in to your Brightgrid store account to connect it.', 'the message');
    const url = await page.locator('#link-url').textContent();
    check(/^http:\/\/127\.0\.0\.1:\d+\/signin\?token=/.test(url), `the full URL is shown: ${url}`);
    check((await page.locator('#link-url mark').textContent()) === '127.0.0.1', 'the host is highlighted');
    check((await page.locator('#link-domain').textContent()) === '127.0.0.1', 'the address to check is named');
    check((await page.locator('main a').count()) === 0, 'the URL is not a link');
    const findings = page.locator('ul.findings li');
    check((await findings.count()) >= 1, 'the review’s findings are listed');
    const all = await findings.allTextContents();
    check(all.some((f) => f.startsWith('Warning')), `a warning is shown with its severity: ${all.join(' | ')}`);
    const focused = await page.evaluate(() => document.activeElement.tagName);
    check(focused !== 'BUTTON', 'no choice has the focus by default');
    for (const name of ['Open link', 'Decline', 'Cancel']) {
      const b = button(page, name);
      check(await b.isVisible(), `${name} is offered`);
      check(!((await b.getAttribute('class')) || '').includes('primary'), `${name} is not the default`);
      const box = await b.boundingBox();
      check(box && box.y >= 0 && box.y + box.height <= 800, `${name} is in view at 1280×800 (${JSON.stringify(box)})`);
    }
    await axeCheck(page, 'the consent screen');
    await page.locator('#question').screenshot({ path: screenshotPath(`${revision}-consent`) });
    if (revision === '2026-07-28') await screenshots(page, 'web-consent');

    // Open link is consent: the tab opens and the server hears accept at once.
    const opened = browser.context.waitForEvent('page');
    await button(page, 'Open link').click();
    const tab = await opened;
    await tab.waitForLoadState();
    check(tab.url() === url, `the new tab opened exactly the reviewed URL: ${tab.url()}`);
    check(await tab.evaluate(() => window.opener === null), 'the new tab cannot reach the host page');
    await shown(page.getByRole('heading', { name: 'Finish in the other tab' }), 'the page waits for the sign-in');
    const wire = await newestCall(page).locator('.timeline').textContent();
    if (revision === '2025-11-25') check(wire.includes('"action": "accept"'), `accept was sent at once: ${wire}`);
    await axeCheck(page, 'the page waiting for the sign-in');
    if (revision === '2026-07-28') await screenshots(page, 'web-waiting');
    await axeCheck(tab, 'the demo sign-in page');
    await tab.getByLabel('Email').fill('lab@example.com');
    await tab.getByLabel('Password').fill('lab');
    await tab.screenshot({ path: screenshotPath(`${revision}-signin`), fullPage: true });
    await tab.getByRole('button', { name: 'Sign in and connect' }).click();
    await shown(tab.getByRole('heading', { name: 'Connected' }), 'the demo sign-in page’s confirmation');
    await axeCheck(tab, 'the demo sign-in page, connected');
    await tab.screenshot({ path: screenshotPath(`${revision}-signin-connected`), fullPage: true });
    await tab.close();

    // Nothing to click: the page moves on by itself.
    await shown(newestCall(page).locator('.result-text').getByText('Your store account is connected.'), 'the connected result, by itself', 30000);

    // The same link a second time (a forwarded or replayed link): the flow is done, and a
    // real browser gets a page for a person, not a JSON-RPC error.
    const again = await browser.context.newPage();
    await again.goto(url);
    await again.getByLabel('Email').fill('someone@example.com');
    const submitted = again.waitForResponse((r) => r.request().method() === 'POST');
    await again.getByRole('button', { name: 'Sign in and connect' }).click();
    const refused = await submitted;
    check(refused.status() === 404, `a used link is refused: HTTP ${refused.status()}`);
    check((refused.headers()['content-type'] || '').startsWith('text/html'), `the refusal is HTML: ${refused.headers()['content-type']}`);
    await shown(again.getByRole('heading', { name: 'This sign-in link is not valid' }), 'the used-link page');
    check(!(await again.locator('body').textContent()).includes('jsonrpc'), 'no JSON-RPC error reaches the person');
    await axeCheck(again, 'the demo sign-in page, used link');
    await again.screenshot({ path: screenshotPath(`${revision}-signin-used`), fullPage: true });
    await again.close();
  });
}

// Esc on a question opens the terminal's choices: decline, cancel, stop asking,
// back. Back returns to the form; Decline tells the server no.
export async function escape(browser, revision) {
  return withLab(browser, revision, 'escape', async (page) => {
    await button(page, 'Call book_return').click();
    await shown(formHeading(page), 'the return form');
    await field(page, 'textbox', 'Contact email').focus();
    await page.keyboard.press('Escape');
    const dialog = page.getByRole('dialog', { name: /^Leave this request from brightgrid \d+\.\d+\.\d+\?$/ });
    await shown(dialog, 'the leave dialog');
    for (const name of ['Decline: tell the server no', 'Cancel: dismiss it', 'Stop asking: cancel all its questions until you disconnect', 'Back']) {
      check(await dialog.getByRole('button', { name }).isVisible(), `${name} is offered`);
    }
    await axeCheck(page, 'the leave dialog');
    if (revision === '2026-07-28') await screenshots(page, 'web-leave');
    await dialog.getByRole('button', { name: 'Back' }).click();
    await until('the dialog to close', async () => !(await dialog.isVisible()));
    await page.keyboard.press('Escape');
    await shown(dialog, 'the leave dialog again');
    await dialog.getByRole('button', { name: 'Decline: tell the server no' }).click();
    await shown(newestCall(page).locator('.result-text').getByText('No return was booked: the person declined.'), 'the declined result');
    await until('the status to say decline was sent', async () => (await page.locator('#notice').textContent()).includes('decline'));
  });
}

export async function queue(browser, revision) {
  return withLab(browser, revision, 'queue', async (page) => {
    await button(page, 'Call book_return').click();
    await shown(formHeading(page), 'the first question');
    await field(page, 'textbox', 'Contact email').fill('ann@example.com');
    await page.waitForTimeout(400); // the live check keeps the draft on the server
    await button(page, 'Call connect_store_account').click();
    const items = page.locator('#queue-list li');
    await until('two questions in the queue', async () => (await items.count()) === 2);
    const [first, second] = await items.allTextContents();
    check(first.includes('Tell us about the return of order A-1001') && first.includes('tools/call book_return'), `the first names its call: ${first}`);
    check(first.includes('on screen'), 'the first is on screen');
    check(second.includes('Sign in to your Brightgrid store account'), `the second is listed: ${second}`);
    if (revision === '2026-07-28') check(second.includes('tools/call connect_store_account'), `the second names its call: ${second}`);
    check((await page.locator('#waiting-note').textContent()) === '1 more question waiting', 'the form says one more waits');
    check((await field(page, 'textbox', 'Contact email').inputValue()) === 'ann@example.com', 'the draft survived the refresh');
    await page.screenshot({ path: screenshotPath(`${revision}-queue`), fullPage: true });

    await button(page, 'Decline').click();
    await shown(linkHeading(page), 'the second question, in turn');
    await until('the queue to shrink', async () => (await items.count()) === 1);
    await button(page, 'Decline').click();
    await shown(page.locator('article.call .result-text').getByText('The account was not connected: the person declined.'), 'the second call’s result');
    await shown(page.locator('article.call .result-text').getByText('No return was booked: the person declined.'), 'the first call’s result');
    await shown(page.getByRole('heading', { name: 'No question is waiting' }), 'an empty queue');
    if (revision === '2026-07-28') {
      // Each call's timeline and explanation leave out the other call's messages.
      const account = page.locator('article.call').first();
      await shown(account.getByText('tools/call connect_store_account was sent 2 times', { exact: false }), 'the account call’s own explanation');
      check(!(await account.locator('.timeline').textContent()).includes('book_return'), 'the account call’s timeline has only its messages');
    }
  });
}

// The whole return, keyboard only: Tab, typing, arrows and Enter. After each
// Enter that sends a form, wait for what only the next page shows.
export async function keyboard(browser, revision) {
  return withLab(browser, revision, 'keyboard', async (page) => {
    const keys = page.keyboard;
    const reviewStep = () => shown(page.getByRole('heading', { name: 'Review your answer before it is sent' }), 'the review step');
    await tabTo(page, 'form.tool:first-of-type button[type="submit"]');
    await keys.press('Enter');
    await shown(question(page).getByText('Tell us about the return of order A-1001'), 'the return form');
    await until('the focus on the question', () => page.evaluate(() => document.activeElement.id === 'q-title'));
    await tabTo(page, '#f0');
    // The focus ring: at least 3:1 against the background around it (WCAG 2.4.11/1.4.11).
    const ratio = await page.evaluate(() => {
      const rgb = (c) => (c.match(/\d+(\.\d+)?/g) || []).slice(0, 3).map(Number);
      const lum = ([r, g, b]) => {
        const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
      };
      const ring = lum(rgb(getComputedStyle(document.activeElement).outlineColor));
      let el = document.activeElement.parentElement;
      let bg = 'rgba(0, 0, 0, 0)';
      while (el && (bg === 'rgba(0, 0, 0, 0)' || bg === 'transparent')) {
        bg = getComputedStyle(el).backgroundColor;
        el = el.parentElement;
      }
      const back = lum(rgb(bg));
      const [hi, lo] = ring > back ? [ring, back] : [back, ring];
      return (hi + 0.05) / (lo + 0.05);
    });
    check(ratio >= 3, `the focus ring has ${ratio.toFixed(2)}:1 against its background`);
    await keys.press('ArrowDown');
    await tabTo(page, '#f2');
    await keys.type('12242026');
    // Enter with a problem left (no email): the focus goes to it.
    await tabTo(page, 'button[value="review"]');
    await keys.press('Enter');
    await until('the focus on the missing email', () => page.evaluate(() => document.activeElement.id === 'f3'));
    await keys.type('ann@example.com');
    await tabTo(page, 'button[value="review"]');
    await keys.press('Enter');
    await reviewStep();
    check((await page.locator('dl.review').textContent()).includes('It arrived damaged'), 'the arrow key chose the first reason');
    await tabTo(page, 'button[value="accept"]');
    await keys.press('Enter');
    await shown(question(page).getByText('Book a pickup of 1 box(es) on 2026-12-24 for order A-1001?'), 'the confirmation');
    if (revision === '2026-07-28') await screenshots(page, 'web-one-step');
    await tabTo(page, 'button[name="answer"][value="yes"]');
    await keys.press('Enter');
    await shown(newestCall(page).locator('.result-text').getByText(BOOKED), 'the booked result');
  });
}
