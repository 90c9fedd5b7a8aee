// cogmem web view: live updates. Listens to /events (server-sent events) and, a moment after
// the workspace changes, fetches the current page again and swaps its <main> in place: no
// reload, the scroll position kept. A page opts out with <main data-live="off"> (it listens to
// the `cogmem:change` event itself). While a field inside <main> has the focus, the swap waits;
// once the person has changed a field (a ticked box, a typed reason), the page is not swapped
// at all, and the live dot says the workspace changed (their choices are never thrown away).
(() => {
  'use strict';
  const DEBOUNCE_MS = 400;
  let timer = null;
  const dot = () => document.getElementById('live-state');

  async function refresh() {
    timer = null;
    const main = document.querySelector('main');
    if (!main || main.dataset.live === 'off') return;
    if (main.dataset.edited === 'yes') {
      const d = dot();
      if (d) {
        d.classList.add('stale');
        d.title = 'The workspace changed: reload to see it (your unsent choices are kept until then)';
      }
      return;
    }
    const focus = document.activeElement;
    if (focus && main.contains(focus) && /^(INPUT|TEXTAREA|SELECT)$/.test(focus.tagName)) {
      timer = setTimeout(refresh, DEBOUNCE_MS * 5);
      return;
    }
    let response;
    try {
      response = await fetch(location.href, { credentials: 'same-origin', cache: 'no-store' });
    } catch (_) {
      return;
    }
    if (!response.ok) return;
    const doc = new DOMParser().parseFromString(await response.text(), 'text/html');
    const fresh = doc.querySelector('main');
    if (!fresh) return;
    main.replaceWith(document.importNode(fresh, true));
    document.dispatchEvent(new CustomEvent('cogmem:refreshed'));
  }

  // A person's edit inside <main> marks it: the next change does not replace it.
  const edited = (event) => {
    const main = document.querySelector('main');
    if (main && main.contains(event.target)) main.dataset.edited = 'yes';
  };
  document.addEventListener('input', edited, true);
  document.addEventListener('change', edited, true);

  function connect() {
    if (!window.EventSource) return;
    const source = new EventSource('/events');
    source.addEventListener('open', () => dot()?.classList.add('on'));
    source.addEventListener('error', () => dot()?.classList.remove('on'));
    source.addEventListener('change', (event) => {
      document.dispatchEvent(new CustomEvent('cogmem:change', { detail: event.data }));
      clearTimeout(timer);
      timer = setTimeout(refresh, DEBOUNCE_MS);
    });
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', connect);
  } else {
    connect();
  }
})();
