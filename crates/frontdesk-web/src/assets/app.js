// frontdesk web host: the page's only script.
//
// The page is rendered by the local server and works as plain forms; this adds:
// 1. live checks: a form's controls are posted to the local server, which reads
//    them with the Rust form model and answers one message per field; they are
//    shown here, and Review is enabled only while the form is valid. Nothing is
//    judged in this script.
// 2. refreshing: a long-polled status says when the page is out of date (a new
//    question, a call that ended) or when only the queue changed.
// 3. opening a consented link in a new tab, on the click of Open link.
// Text from the server is only ever set with textContent.
'use strict';

(function () {
  const body = document.body;
  const flushers = [];
  const FOCUS_KEY = 'frontdesk-focus';
  // Once the page sends a form it is on its way to the next page: it must not
  // also refresh itself (that would race the form's own navigation).
  const leaving = new AbortController();
  document.addEventListener('submit', () => leaving.abort(), true);

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
    const showAll = form.dataset.showAll === 'true';
    const review = form.querySelector('button[value="review"]');
    let timer = 0;
    let sent = 0;
    let submitted = false;

    function apply(result) {
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
      if (review) review.disabled = !result.valid;
    }

    async function check() {
      clearTimeout(timer);
      if (submitted) return;
      const mine = ++sent;
      try {
        const response = await fetch(form.dataset.check, { method: 'POST', body: encode(form) });
        if (!response.ok) return;
        const result = await response.json();
        // A question that moved on (answered, withdrawn): the status poll refreshes.
        if (mine === sent && !result.gone && !submitted) apply(result);
      } catch (_) {
        // The host is not answering; the status poll says so.
      }
    }

    function changed(event) {
      const index = fieldIndex(event.target);
      if (index !== null) touched.add(index);
      markBadNumber(event.target);
      clearTimeout(timer);
      timer = setTimeout(check, 150);
    }

    form.addEventListener('submit', () => {
      submitted = true;
      clearTimeout(timer);
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

  for (const form of document.querySelectorAll('form[data-check]')) liveForm(form);
  for (const button of document.querySelectorAll('button[data-open]')) {
    button.addEventListener('click', () => {
      const url = button.dataset.open || '';
      if (/^https?:\/\//i.test(url)) window.open(url, '_blank', 'noopener,noreferrer');
    });
  }
  placeFocus();
  watch();
})();
