// frontdesk web host: the page's only script.
//
// The page is rendered by the local server and works as plain forms; this adds:
// 1. live checks: a form's controls are posted to the local server, which reads
//    them with the Rust form model and answers one message per field; they are
//    shown here. Review is never disabled: with problems it shows them all and
//    moves the focus to the first one. Nothing is judged in this script.
// 2. refreshing: a long-polled status says when the page is out of date (a new
//    question, a call that ended, a sign-in finished) or when only the queue changed.
// 3. opening a consented link in a new tab, on the click of Open link.
// 4. Esc: the leave dialog (decline, cancel, stop asking, back), as in the terminal.
// 5. "Copy as JSON" on the wire timeline; the tools' arguments kept across refreshes.
// Text from the server is only ever set with textContent.
'use strict';

(function () {
  const body = document.body;
  const flushers = [];
  const FOCUS_KEY = 'frontdesk-focus';
  // Once the page sends a form it is on its way to the next page: it must not
  // also refresh itself (that would race the form's own navigation).
  const leaving = new AbortController();
  document.addEventListener('submit', (event) => {
    if (!event.defaultPrevented) leaving.abort();
  });

  function announce(text) {
    const notice = document.getElementById('notice');
    if (!notice) return;
    notice.textContent = '';
    // A change after load is what a screen reader announces.
    setTimeout(() => {
      notice.textContent = text;
    }, 50);
  }

  function encode(form) {
    const data = new URLSearchParams();
    for (const [name, value] of new FormData(form)) {
      if (typeof value === 'string') data.append(name, value);
    }
    return data;
  }

  function fieldIndex(element) {
    const field = element instanceof Element ? element.closest('[data-field]') : null;
    return field ? Number(field.dataset.field) : null;
  }

  // A number input whose text the browser cannot read reports an empty value;
  // say so to the server, which answers with the form model's message.
  function markBadNumber(element) {
    if (!(element instanceof HTMLInputElement) || element.type !== 'number' || !element.form) return;
    for (const hidden of element.form.querySelectorAll('input[data-bad-for]')) {
      if (hidden.dataset.badFor === element.id) hidden.value = element.validity.badInput ? '1' : '';
    }
  }

  function liveForm(form) {
    const touched = new Set();
    let showAll = form.dataset.showAll === 'true';
    const review = form.querySelector('button[value="review"]');
    let timer = 0;
    let sent = 0;
    let submitted = false;
    let last = null;

    function apply(result) {
      last = result;
      for (const field of result.fields) {
        const message = document.getElementById(`f${field.index}-msg`);
        const control = document.getElementById(`f${field.index}`);
        const shown = field.message && (showAll || touched.has(field.index)) ? field.message : '';
        if (message) message.textContent = shown;
        if (control) control.setAttribute('aria-invalid', shown ? 'true' : 'false');
      }
      const general = document.getElementById('general-msg');
      if (general && showAll) {
        general.replaceChildren();
        for (const text of result.general) {
          const p = document.createElement('p');
          p.textContent = text;
          general.append(p);
        }
      }
    }

    async function check() {
      clearTimeout(timer);
      if (submitted) return null;
      const mine = ++sent;
      try {
        const response = await fetch(form.dataset.check, { method: 'POST', body: encode(form) });
        if (!response.ok) return null;
        const result = await response.json();
        // A question that moved on (answered, withdrawn): the status poll refreshes.
        if (mine === sent && !result.gone && !submitted) apply(result);
        return result.gone ? null : result;
      } catch (_) {
        // The host is not answering; the status poll says so.
        return null;
      }
    }

    function changed(event) {
      const index = fieldIndex(event.target);
      if (index !== null) touched.add(index);
      markBadNumber(event.target);
      clearTimeout(timer);
      timer = setTimeout(check, 150);
    }

    // Review with problems: every message shown, the focus on the first one.
    form.addEventListener('submit', async (event) => {
      const button = event.submitter;
      if (submitted) return;
      if (!button || button !== review) {
        submitted = true;
        clearTimeout(timer);
        return;
      }
      event.preventDefault();
      const result = (await check()) || last;
      if (result && !result.valid) {
        showAll = true;
        apply(result);
        const first = form.querySelector('[aria-invalid="true"]') || document.querySelector('#general-msg p');
        const count = result.fields.filter((f) => f.message).length + result.general.length;
        announce(`Not sent: ${count} ${count === 1 ? 'problem' : 'problems'} to fix.`);
        if (first) {
          if (!first.hasAttribute('tabindex') && !first.matches('input, select, textarea, button, fieldset')) first.setAttribute('tabindex', '-1');
          first.focus();
        }
        return;
      }
      submitted = true;
      leaving.abort();
      form.requestSubmit(review);
    });
    form.addEventListener('input', changed);
    form.addEventListener('change', changed);
    form.addEventListener('focusout', (event) => {
      const index = fieldIndex(event.target);
      if (index !== null && !touched.has(index)) {
        touched.add(index);
        check();
      }
    });
    flushers.push(check);
  }

  // The tools' arguments: what is typed is kept (per tool, in this tab) across
  // the page's refreshes.
  function keepTyped(form) {
    const key = `frontdesk-args-${form.dataset.keep}`;
    const controls = () => form.querySelectorAll('input:not([type="hidden"]), select, textarea');
    try {
      const saved = JSON.parse(sessionStorage.getItem(key) || 'null');
      if (saved) {
        for (const control of controls()) {
          if (!(control.id in saved)) continue;
          if (control.type === 'checkbox') control.checked = saved[control.id] === true;
          else control.value = saved[control.id];
        }
      }
    } catch (_) {
      // Nothing kept: the form starts as rendered.
    }
    const save = () => {
      const values = {};
      for (const control of controls()) {
        if (!control.id) continue;
        values[control.id] = control.type === 'checkbox' ? control.checked : control.value;
      }
      try {
        sessionStorage.setItem(key, JSON.stringify(values));
      } catch (_) {
        // No storage: typing is simply not kept.
      }
    };
    form.addEventListener('input', save);
    form.addEventListener('change', save);
  }

  function renderQueue(items, note) {
    const list = document.getElementById('queue-list');
    if (list) {
      list.replaceChildren();
      if (items.length === 0) {
        const li = document.createElement('li');
        li.className = 'empty';
        li.textContent = 'None waiting.';
        list.append(li);
      }
      for (const item of items) {
        const li = document.createElement('li');
        const title = document.createElement('span');
        title.className = 'title';
        title.textContent = item.title;
        const text = document.createElement('span');
        text.className = 'text';
        text.textContent = item.message;
        li.append(title, ' ', text);
        if (item.current) {
          li.className = 'current';
          const now = document.createElement('span');
          now.className = 'now';
          now.textContent = 'on screen';
          li.append(' ', now);
        }
        list.append(li);
      }
    }
    const waiting = document.getElementById('waiting-note');
    if (waiting) waiting.textContent = note;
  }

  function questionForm() {
    const form = document.querySelector('#question form');
    return form ? form.getAttribute('action') : null;
  }

  async function refresh() {
    await Promise.all(flushers.map((flush) => flush()));
    if (leaving.signal.aborted) return;
    const active = document.activeElement;
    const saved = { question: questionForm() };
    if (active && active.id && active !== body) {
      saved.id = active.id;
      saved.form = active.form ? active.form.getAttribute('action') : null;
      if (typeof active.selectionStart === 'number') {
        saved.start = active.selectionStart;
        saved.end = active.selectionEnd;
      }
    }
    try {
      sessionStorage.setItem(FOCUS_KEY, JSON.stringify(saved));
    } catch (_) {
      // No storage: focus simply starts over.
    }
    location.reload();
  }

  function placeFocus() {
    let saved = null;
    try {
      saved = JSON.parse(sessionStorage.getItem(FOCUS_KEY) || 'null');
      sessionStorage.removeItem(FOCUS_KEY);
    } catch (_) {
      saved = null;
    }
    const question = questionForm();
    if (saved && saved.id) {
      const element = document.getElementById(saved.id);
      const form = element && element.form ? element.form.getAttribute('action') : null;
      if (element && form === saved.form && (saved.question === question || !element.closest('#question'))) {
        element.focus();
        if (typeof saved.start === 'number' && typeof element.setSelectionRange === 'function') {
          try {
            element.setSelectionRange(saved.start, saved.end);
          } catch (_) {
            // Inputs without a selection (number, date) keep the caret where it is.
          }
        }
        return;
      }
    }
    if (question && (!saved || saved.question !== question)) {
      const invalid = document.querySelector('#question [aria-invalid="true"]');
      const heading = document.getElementById('q-title');
      (invalid || heading).focus();
    }
  }

  function setOffline(offline) {
    const notice = document.getElementById('notice');
    if (!notice) return;
    if (offline) {
      notice.textContent = 'The host is not answering: it may have stopped.';
      notice.dataset.offline = 'true';
    } else if (notice.dataset.offline === 'true') {
      notice.textContent = '';
      delete notice.dataset.offline;
    }
  }

  async function watch() {
    const screen = body.dataset.screen;
    let queue = body.dataset.queue;
    let failures = 0;
    for (;;) {
      try {
        const query = new URLSearchParams({ screen, queue });
        const response = await fetch(`status?${query}`, { cache: 'no-store', signal: leaving.signal });
        if (!response.ok) throw new Error(String(response.status));
        const status = await response.json();
        failures = 0;
        setOffline(false);
        if (leaving.signal.aborted) return;
        if (String(status.screen) !== screen) {
          await refresh();
          return;
        }
        if (String(status.queue) !== queue) {
          queue = String(status.queue);
          renderQueue(status.waiting, status.note);
        }
      } catch (_) {
        if (leaving.signal.aborted) return;
        failures += 1;
        if (failures > 1) setOffline(true);
        await new Promise((done) => setTimeout(done, Math.min(5000, 500 * failures)));
      }
    }
  }

  async function copy(text, what) {
    try {
      await navigator.clipboard.writeText(text);
      announce(`Copied ${what} as JSON.`);
    } catch (_) {
      announce('Copying is not allowed here: select the JSON and copy it.');
    }
  }

  function wireButtons() {
    for (const button of document.querySelectorAll('button.copy-json')) {
      button.hidden = false;
      button.addEventListener('click', () => {
        const pre = button.parentElement.querySelector('pre');
        if (pre) copy(pre.textContent, 'the message');
      });
    }
    for (const button of document.querySelectorAll('button.copy-all')) {
      button.hidden = false;
      button.addEventListener('click', () => {
        const section = button.closest('section');
        const messages = [];
        for (const pre of section.querySelectorAll('.timeline pre')) {
          try {
            messages.push(JSON.parse(pre.textContent));
          } catch (_) {
            messages.push(pre.textContent);
          }
        }
        copy(JSON.stringify(messages, null, 2), `${messages.length} messages`);
      });
    }
  }

  function leaveDialog() {
    const dialog = document.getElementById('leave');
    if (!dialog || typeof dialog.showModal !== 'function') return;
    for (const close of dialog.querySelectorAll('[data-close]')) {
      close.addEventListener('click', () => dialog.close());
    }
    document.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || dialog.open || event.defaultPrevented) return;
      // An open <select> list takes Esc for itself.
      if (event.target instanceof HTMLSelectElement) return;
      event.preventDefault();
      dialog.showModal();
    });
  }

  for (const form of document.querySelectorAll('form[data-check]')) liveForm(form);
  for (const form of document.querySelectorAll('form[data-keep]')) keepTyped(form);
  for (const button of document.querySelectorAll('button[data-open]')) {
    button.addEventListener('click', () => {
      const url = button.dataset.open || '';
      if (/^https?:\/\//i.test(url)) window.open(url, '_blank', 'noopener,noreferrer');
    });
  }
  wireButtons();
  leaveDialog();
  const notice = document.getElementById('notice');
  if (notice && notice.textContent) announce(notice.textContent);
  placeFocus();
  watch();
})();
