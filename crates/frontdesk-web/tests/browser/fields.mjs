// Every kind of field of the subset (`every_field` of examples/hostile_server.rs,
// behind `frontdesk connect --web`): each control found by its role with the
// field's title as its accessible name, the form model's messages as the person
// types, and the typed values the server received.

import { check, closePage, screenshotPath, settings, shown, startHost, until } from './harness.mjs';

export async function everyField(browser, revision) {
  const host = await startHost(['connect', '--web', '--no-open', '--protocol', revision, '--', settings.hostile]);
  const page = await browser.context.newPage();
  try {
    await page.goto(host.url);
    await shown(page.getByText(`protocol ${revision}`), 'the connection');
    await page.getByRole('button', { name: 'Call every_field', exact: true }).click();
    await shown(page.getByRole('heading', { name: /asks you to fill in a form$/ }), 'the form');
    const q = page.locator('#question');
    const control = (role, name) => q.getByRole(role, { name, exact: true });
    const types = {
      Name: 'text',
      Email: 'email',
      Website: 'url',
      Birthday: 'date',
      Meeting: 'text',
    };
    for (const [name, type] of Object.entries(types)) {
      check((await control('textbox', name).getAttribute('type')) === type, `${name} is an input of type ${type}`);
    }
    const seats = control('spinbutton', 'Seats');
    check((await seats.getAttribute('min')) === '1' && (await seats.getAttribute('max')) === '4', 'Seats has its range');
    check((await seats.inputValue()) === '2', 'Seats starts at its default');
    check((await control('spinbutton', 'Budget').getAttribute('step')) === 'any', 'Budget takes fractions');
    check(!(await control('checkbox', 'Newsletter').isChecked()), 'Newsletter starts at its default, unticked');
    const callMe = await control('combobox', 'Call me').locator('option').allTextContents();
    check(callMe.join('|') === '(no answer)|Yes|No', `a boolean without default chooses nothing for the person: ${callMe}`);
    const plans = await control('combobox', 'Plan').locator('option').allTextContents();
    check(plans.join('|') === 'Choose…|Basic plan|Pro plan', `the select shows titles: ${plans}`);
    const toppings = control('group', 'Toppings');
    check((await toppings.getByRole('checkbox').count()) === 3, 'the multi-select is a group of checkboxes');
    check(await q.getByText('choose 1 to 2').isVisible(), 'the item limits are shown');

    const messages = [
      [() => control('textbox', 'Name').fill('A'), 'Name must be between 2 and 40 characters'],
      [() => control('textbox', 'Website').fill('example'), 'Website must be a full address like https://example.com'],
      [() => control('textbox', 'Meeting').fill('tomorrow'), 'Meeting must be a date and time like 2024-12-31T23:59:00Z'],
      [() => control('spinbutton', 'Budget').fill('100'), 'Budget must be between 0.5 and 99.5'],
      [() => control('spinbutton', 'Budget').fill('').then(() => control('spinbutton', 'Budget').pressSequentially('1e')), 'Budget must be a number'],
      [
        async () => {
          for (const name of ['Ham', 'Olives', 'Basil']) await toppings.getByRole('checkbox', { name, exact: true }).check();
        },
        'Toppings must have between 1 and 2 choices',
      ],
    ];
    for (const [act, message] of messages) {
      await act();
      await shown(q.getByText(message, { exact: true }), `the form model's message "${message}"`);
    }
    check(await q.getByRole('button', { name: 'Review', exact: true }).isEnabled(), 'Review stays reachable while anything is wrong');
    await page.locator('#question').screenshot({ path: screenshotPath(`${revision}-every-field`) });

    await control('textbox', 'Name').fill('Ann');
    await control('textbox', 'Email').fill('ann@example.com');
    await control('textbox', 'Website').fill('https://example.com/ann');
    await control('textbox', 'Birthday').fill('1990-05-17');
    await control('textbox', 'Meeting').fill('2026-12-24T09:30:00Z');
    await seats.fill('3');
    await control('spinbutton', 'Budget').fill('12.5');
    await control('checkbox', 'Newsletter').check();
    await control('combobox', 'Call me').selectOption({ label: 'Yes' });
    await control('combobox', 'Plan').selectOption({ label: 'Pro plan' });
    await toppings.getByRole('checkbox', { name: 'Olives', exact: true }).uncheck();
    const review = q.getByRole('button', { name: 'Review', exact: true });
    await until('no message to be left', async () => (await q.locator('.msg:not(:empty)').count()) === 0);
    await review.click();
    await shown(page.getByRole('heading', { name: 'Review your answer before it is sent' }), 'the review');
    const shownAnswer = await page.locator('dl.review').innerText();
    for (const text of ['Pro plan', 'Ham, Basil', '12.5', '2026-12-24T09:30:00Z']) {
      check(shownAnswer.includes(text), `the review shows ${text}: ${shownAnswer}`);
    }
    await page.getByRole('button', { name: 'Accept', exact: true }).click();
    const result = page.locator('article.call .result-text').first();
    await shown(result.getByText('received {', { exact: false }), 'the result');
    const received = JSON.parse((await result.innerText()).trim().replace(/^received /, ''));
    const expected = {
      name: 'Ann',
      email: 'ann@example.com',
      site: 'https://example.com/ann',
      birthday: '1990-05-17',
      meeting: '2026-12-24T09:30:00Z',
      seats: 3,
      budget: 12.5,
      newsletter: true,
      call_me: true,
      plan: 'pro',
      toppings: ['ham', 'basil'],
    };
    for (const [key, value] of Object.entries(expected)) {
      check(JSON.stringify(received[key]) === JSON.stringify(value), `the server received ${key} = ${JSON.stringify(received[key])}, not ${JSON.stringify(value)}`);
    }
  } finally {
    await closePage(page);
    await host.stop();
  }
}
