// A hostile server (examples/hostile_server.rs) behind `frontdesk connect --web`:
// HTML and script in every text it controls must be shown as text and never run;
// a javascript: link must be refused and never offered; a secret typed into its
// form must appear nowhere on the page.

import { createServer } from 'node:http';

import { check, closePage, screenshotPath, settings, shown, startHost, until } from './harness.mjs';

const SCRIPT = `<img src=x onerror="window.__pwned='img'"><script>window.__pwned='script'</script>`;
const SECRET = 'sk-test-4242-do-not-show';

async function inert(page, when) {
  const pwned = await page.evaluate(() => window.__pwned);
  check(pwned === undefined, `${when}: server text ran as script (${pwned})`);
  check((await page.locator('img').count()) === 0, `${when}: server text became an image`);
  check((await page.locator('script').count()) === 1, `${when}: server text became a script element`);
  check((await page.locator('h1').count()) === 1, `${when}: server text became a heading`);
  check((await page.locator('b, i').count()) === 0, `${when}: server text became markup`);
}

export async function hostile(browser, revision) {
  const host = await startHost(['connect', '--web', '--no-open', '--protocol', revision, '--', settings.hostile]);
  const page = await browser.context.newPage();
  const dialogs = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    dialog.dismiss();
  });
  try {
    await page.goto(host.url);
    await shown(page.getByText(`protocol ${revision}`), 'the connection');
    const status = await page.locator('#link-status').textContent();
    check(status.includes("evil<script>window.__pwned='server'</script>"), `the server's name is shown as text: ${status}`);
    check((await page.locator('.about').first().textContent()).includes(SCRIPT), 'tool descriptions are shown as text');
    await inert(page, 'the tool list');

    await page.getByRole('button', { name: 'Call ask_form', exact: true }).click();
    await shown(page.getByRole('heading', { name: /asks you to fill in a form$/ }), 'the hostile form');
    const message = await page.locator('#q-message').textContent();
    check(message.includes(`Please fill this in ${SCRIPT}`), `the message is text: ${message}`);
    check(message.includes('</p><h1>not a heading</h1>'), 'markup in the message stays text');
    const name = page.getByRole('textbox', { name: "Name <b>bold</b><script>window.__pwned='title'</script>", exact: true });
    check(await name.isVisible(), 'a field is named by its title, as text');
    check((await name.inputValue()) === `"><script>window.__pwned='default'</script>`, 'the default stays a value');
    check(await page.getByText(`<i>Described</i> <img src=x onerror="window.__pwned='desc'">`).isVisible(), 'descriptions are text');
    const options = await page.getByRole('combobox', { name: 'Colour', exact: true }).locator('option').allTextContents();
    check(options.includes(`<b onmouseover="window.__pwned='option'">Red</b>`), `option titles are text: ${options}`);
    const key = page.getByRole('textbox', { name: 'API key', exact: true });
    check((await key.getAttribute('type')) === 'password', 'a field that looks like a secret is hidden while typed');
    await shown(page.getByText('Servers must not ask for secrets in a form'), 'the secrets warning');
    await shown(page.getByText('API key looks like it asks for an API key', { exact: false }), 'the field’s own warning');
    await inert(page, 'the form');
    await page.screenshot({ path: screenshotPath(`${revision}-hostile`), fullPage: true });

    await key.fill(SECRET);
    await until('Review to be enabled', () => page.getByRole('button', { name: 'Review', exact: true }).isEnabled());
    await page.getByRole('button', { name: 'Review', exact: true }).click();
    await shown(page.getByRole('heading', { name: 'Review your answer before it is sent' }), 'the review');
    check((await page.locator('dl.review').textContent()).includes('••••••••'), 'the review masks the secret');
    await page.getByRole('button', { name: 'Accept', exact: true }).click();
    await shown(page.locator('article.call .result-text').getByText('Got "', { exact: false }), 'the result');
    check((await page.locator('article.call .result-text').textContent()).includes(SCRIPT), 'the result is text');
    const everything = await page.evaluate(() => document.documentElement.outerHTML);
    check(!everything.includes(SECRET), 'the secret typed into the form appears nowhere on the page');
    check(everything.includes('••••••••'), 'the wire timeline shows it masked');
    await inert(page, 'the result');

    await page.getByRole('button', { name: 'Call ask_link', exact: true }).click();
    await shown(page.getByRole('heading', { name: /asks you to open a link$/ }), 'the hostile link');
    await shown(page.getByText('This link is refused and will not be opened.'), 'the refusal');
    check((await page.getByRole('button', { name: 'Open link' }).count()) === 0, 'a refused link cannot be opened');
    check((await page.locator('[data-open]').count()) === 0, 'the page is not even given the refused URL to open');
    check((await page.locator('ul.findings li.sev-refusal').count()) >= 1, 'the refusal is listed with its severity');
    await page.getByRole('button', { name: 'Decline', exact: true }).click();
    await shown(page.locator('article.call').first().getByText('declined'), 'the declined result');
    await inert(page, 'the link');
    check(dialogs.length === 0, `server text opened dialogs: ${dialogs.join(', ')}`);
  } finally {
    await closePage(page);
    await host.stop();
  }
}

// The protections, from a browser: a wrong secret, and another site on this
// machine posting a form to the host (cross-site request forgery).
export async function protections(browser, revision) {
  const host = await startHost(['lab', '--web', '--no-open', '--protocol', revision]);
  const elsewhere = createServer((_, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end('<!doctype html><title>elsewhere</title><p>another site</p>');
  });
  await new Promise((done) => elsewhere.listen(0, '127.0.0.1', done));
  const page = await browser.context.newPage();
  try {
    const wrong = host.url.replace(/[0-9a-f]{64}/, '0'.repeat(64));
    const refused = await page.goto(wrong);
    check(refused.status() === 404, `a wrong secret is refused (${refused.status()})`);
    check(!(await page.content()).includes('frontdesk lab'), 'nothing of the page is shown without the secret');

    await page.goto(`http://127.0.0.1:${elsewhere.address().port}/`);
    const answered = page.waitForResponse((r) => r.url() === `${host.url}call`);
    await page.evaluate((target) => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = `${target}call`;
      for (const [name, value] of [['tool', 'book_return'], ['arguments', '{"order_id":"X-1"}']]) {
        const input = document.createElement('input');
        input.name = name;
        input.value = value;
        form.append(input);
      }
      document.body.append(form);
      form.submit();
    }, host.url);
    const response = await answered;
    check(response.status() === 403, `a post from another origin is refused (${response.status()})`);
    await page.waitForURL(`${host.url}call`);
    check((await page.textContent('body')).includes('Refused: the request does not come from this page.'), 'the refusal says why');
    await page.goto(host.url);
    await shown(page.getByText(`protocol ${revision}`), 'the page');
    check((await page.locator('article.call').count()) === 0, 'the forged post started no call');
  } finally {
    await closePage(page);
    await host.stop();
    elsewhere.close();
  }
}
