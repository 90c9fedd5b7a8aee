// cogmem web view: the graph page. Draws /api/graph with the vendored Cytoscape.js (pan and
// zoom are its own), and wires the controls the page renders: find an entity (the server
// resolves names, aliases and the start of an id, and draws its neighbourhood), filter by type
// and relation, a time slider for as_of, clusters that open on a click, a side panel with a link
// to the entity's page, and the activation the selected entity spreads. Every text shown comes
// from the API and is set with textContent or drawn on the canvas: never parsed as HTML.
(() => {
  'use strict';

  window.__errors = window.__errors || [];
  window.addEventListener('error', (e) => window.__errors.push(String(e.message)));
  window.addEventListener('unhandledrejection', (e) => window.__errors.push(String(e.reason)));

  const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1',
    '#ff9da7', '#9c755f', '#bab0ac'];
  const DAY = 86400000;

  const $ = (id) => document.getElementById(id);
  const box = $('graph');
  if (!box || typeof window.cytoscape !== 'function') return;

  // The graph redraws itself on a change; the page-wide live swap would drop the canvas.
  const main = document.querySelector('main');
  if (main) main.dataset.live = 'off';

  const api = box.dataset.api;
  const activationApi = box.dataset.activation;
  const entityBase = box.dataset.entity;
  const form = $('graph-controls');
  const search = $('graph-search');
  const depth = $('graph-depth');
  const typeSel = $('graph-type');
  const relSel = $('graph-relation');
  const slider = $('graph-time');
  const dateOut = $('graph-date');
  const asOf = $('graph-as-of');
  const status = $('graph-status');
  const side = $('graph-side');

  const state = {
    focus: search.value.trim(),
    depth: depth.value || '1',
    type: box.dataset.type || '',
    relation: box.dataset.relation || '',
    as_of: asOf.value.trim(),
    limit: box.dataset.limit || '',
  };
  // "1 relation", "2 relations".
  const count = (n, one, many) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
  const colors = new Map();
  const colorOf = (kind) => {
    if (!colors.has(kind)) {
      let h = 0;
      for (const c of kind) h = (h * 31 + c.charCodeAt(0)) >>> 0;
      colors.set(kind, PALETTE[h % PALETTE.length]);
    }
    return colors.get(kind);
  };

  const cy = window.cytoscape({
    container: box,
    elements: [],
    minZoom: 0.05,
    maxZoom: 4,
    style: [
      { selector: 'node', style: {
        'background-color': 'data(color)', label: 'data(label)', 'font-size': 11,
        'text-valign': 'bottom', 'text-margin-y': 3, color: '#222', width: 'data(size)',
        height: 'data(size)', 'text-wrap': 'ellipsis', 'text-max-width': 140,
      } },
      { selector: 'node.past', style: { 'background-opacity': 0.35, 'border-width': 2,
        'border-style': 'dashed', 'border-color': '#777' } },
      { selector: 'node.cluster', style: { shape: 'round-rectangle', 'font-size': 13,
        'font-weight': 'bold', 'text-valign': 'center', color: '#fff', 'text-outline-width': 2,
        'text-outline-color': 'data(color)' } },
      { selector: 'node.focus', style: { 'border-width': 4, 'border-color': '#111' } },
      { selector: 'node:selected', style: { 'border-width': 4, 'border-color': '#d62728' } },
      { selector: 'node.lit', style: { 'underlay-color': '#ffbf00', 'underlay-padding': 'data(glow)',
        'underlay-opacity': 0.7, 'underlay-shape': 'ellipse' } },
      { selector: 'node.dim', style: { opacity: 0.25 } },
      { selector: 'edge', style: {
        width: 'data(width)', 'line-color': '#9aa5b1', 'target-arrow-color': '#9aa5b1',
        'target-arrow-shape': 'triangle', 'curve-style': 'bezier', 'arrow-scale': 0.8,
        label: 'data(label)', 'font-size': 9, color: '#555', 'text-rotation': 'autorotate',
        'text-background-color': '#fff', 'text-background-opacity': 0.8,
        'text-background-padding': 1,
      } },
      { selector: 'edge.closed', style: { 'line-style': 'dashed' } },
      { selector: 'edge.quiet', style: { 'text-opacity': 0 } },
      { selector: 'edge:selected, edge.near', style: { 'text-opacity': 1, 'line-color': '#d62728',
        'target-arrow-color': '#d62728' } },
    ],
  });

  // For the browser tests and anyone at the console: the graph and what was drawn.
  const handle = { cy, view: null, ready: false, loads: 0 };
  window.cogmemGraph = handle;

  function query() {
    const q = new URLSearchParams();
    for (const key of ['focus', 'depth', 'type', 'relation', 'as_of', 'limit']) {
      if (state[key] && !(key === 'depth' && !state.focus)) q.set(key, state[key]);
    }
    return q;
  }

  function say(text, isError) {
    status.textContent = text;
    status.classList.toggle('error', Boolean(isError));
  }

  // What an API error says: `{"error": {"status", "message", "hint"}}`.
  function problem(response, body) {
    const err = body && body.error;
    const why = (err && err.message) || `The server answered ${response.status}.`;
    return err && err.hint ? `${why} (${err.hint})` : why;
  }

  async function load() {
    const q = query();
    history.replaceState(null, '', `${location.pathname}${q.toString() ? `?${q}` : ''}`);
    say('Loading…');
    handle.ready = false;
    let response;
    try {
      response = await fetch(`${api}?${q}`, { credentials: 'same-origin', cache: 'no-store' });
    } catch (e) {
      say(`The server did not answer (${e.message}); is \`cogmem serve\` still running?`, true);
      return;
    }
    const body = await response.json().catch(() => null);
    if (!response.ok || !body) {
      say(problem(response, body), true);
      handle.loads += 1;
      handle.ready = true;
      return;
    }
    handle.view = body;
    fillFilters(body);
    fillSlider(body);
    draw(body);
    handle.loads += 1;
    handle.ready = true;
  }

  function fillSelect(select, values, chosen) {
    const keep = chosen || '';
    while (select.options.length > 1) select.remove(1);
    for (const v of values) {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = v;
      select.appendChild(o);
    }
    if (keep && !values.includes(keep)) {
      const o = document.createElement('option');
      o.value = keep;
      o.textContent = keep;
      select.appendChild(o);
    }
    select.value = keep;
  }

  function fillFilters(view) {
    fillSelect(typeSel, view.kinds, state.type);
    fillSelect(relSel, view.relations, state.relation);
    const list = $('graph-ids');
    list.textContent = '';
    for (const n of view.nodes.slice(0, 500)) {
      const o = document.createElement('option');
      o.value = n.id;
      list.appendChild(o);
    }
  }

  const dayOf = (text) => Date.parse(`${text}T00:00:00Z`);
  const textOf = (ms) => new Date(ms).toISOString().slice(0, 10);

  function fillSlider(view) {
    if (!view.dates) {
      slider.disabled = true;
      dateOut.textContent = 'now';
      return;
    }
    const first = dayOf(view.dates[0]);
    const last = dayOf(view.dates[1]);
    const span = Math.max(1, Math.round((last - first) / DAY));
    slider.disabled = false;
    slider.min = '0';
    slider.max = String(span + 1); // the last step is "now"
    if (state.as_of) {
      const at = Math.round((dayOf(state.as_of) - first) / DAY);
      slider.value = String(Math.min(Math.max(at, 0), span));
      dateOut.textContent = state.as_of;
    } else {
      slider.value = slider.max;
      dateOut.textContent = 'now';
    }
    slider.dataset.first = String(first);
  }

  function sliderDate() {
    if (slider.value === slider.max) return '';
    return textOf(Number(slider.dataset.first) + Number(slider.value) * DAY);
  }

  function draw(view) {
    cy.elements().remove();
    const els = [];
    if (view.clusters.length) {
      const most = Math.max(...view.clusters.map((c) => c.count));
      for (const c of view.clusters) {
        els.push({ group: 'nodes', classes: 'cluster', data: {
          id: `cluster:${c.kind}`, kind: c.kind, count: c.count, color: colorOf(c.kind),
          label: `${c.kind} (${c.count.toLocaleString('en')})`,
          size: 40 + 60 * Math.sqrt(c.count / most),
        } });
      }
      for (const e of view.cluster_edges) {
        if (e.from === e.to) continue;
        els.push({ group: 'edges', data: { id: `ce:${e.from}>${e.to}`,
          source: `cluster:${e.from}`, target: `cluster:${e.to}`,
          label: e.count.toLocaleString('en'), width: 1 + Math.log10(1 + e.count) * 2 } });
      }
      say(`${view.total.toLocaleString('en')} entities, more than can be drawn one by one: ` +
        `one box per type. Click a type to open it, or find an entity by name.`);
    } else {
      const top = Math.max(1, ...view.nodes.map((n) => n.degree));
      for (const n of view.nodes) {
        const classes = [];
        if (!n.current) classes.push('past');
        if (n.id === view.focus) classes.push('focus');
        els.push({ group: 'nodes', classes: classes.join(' '), data: {
          id: n.id, label: n.label, kind: n.kind, status: n.status, degree: n.degree,
          current: n.current, color: colorOf(n.kind), size: 14 + 26 * Math.sqrt(n.degree / top),
        } });
      }
      view.edges.forEach((e, i) => {
        els.push({ group: 'edges', classes: `${e.until ? 'closed' : ''} ${view.edges.length > 60 ? 'quiet' : ''}`,
          data: { id: `e${i}`, source: e.from, target: e.to, label: e.relation, relation: e.relation,
            since: e.since || '', until: e.until || '', width: 1 + 2 * e.confidence } });
      });
      const shown = `${count(view.nodes.length, 'entity', 'entities')}, ` +
        `${count(view.edges.length, 'relation', 'relations')}`;
      const when = view.as_of ? ` as of ${view.as_of}` : '';
      const more = view.omitted
        ? ` (${view.omitted === 1 ? 'the least connected one is' : `the ${view.omitted.toLocaleString('en')} least connected are`} not drawn: choose a type or find an entity)`
        : '';
      say(`${shown}${when}${more}.`);
    }
    cy.add(els);
    const layout = view.clusters.length || view.nodes.length > 150
      ? { name: 'cose', animate: false, randomize: false, nodeRepulsion: () => 8000, numIter: 600 }
      : { name: 'cose', animate: false, randomize: false, nodeRepulsion: () => 6000 };
    if (view.focus && !view.clusters.length) {
      layout.name = 'concentric';
      layout.concentric = (n) => 10 - (view.nodes.find((m) => m.id === n.id())?.distance ?? 9);
      layout.levelWidth = () => 1;
      layout.minNodeSpacing = 30;
    }
    cy.layout(layout).run();
    cy.fit(undefined, 30);
    if (view.focus) {
      const f = cy.getElementById(view.focus);
      if (f.nonempty()) select(f);
    } else {
      showSide(null);
    }
  }

  function field(dl, name, value) {
    const dt = document.createElement('dt');
    dt.textContent = name;
    const dd = document.createElement('dd');
    dd.textContent = value;
    dl.append(dt, dd);
  }

  function showSide(node) {
    side.textContent = '';
    if (!node) {
      const p = document.createElement('p');
      p.className = 'muted';
      p.textContent = 'Click an entity to see it here; double-click to open its page.';
      side.appendChild(p);
      return;
    }
    const d = node.data();
    const h = document.createElement('h2');
    h.textContent = d.label;
    const dl = document.createElement('dl');
    field(dl, 'Id', d.id);
    field(dl, 'Type', d.kind);
    field(dl, 'Status', d.current ? d.status : `${d.status} (not current at this date)`);
    field(dl, 'Relations', String(d.degree));
    const open = document.createElement('a');
    open.id = 'graph-open';
    open.href = entityBase + encodeURIComponent(d.id) + (state.as_of ? `?as_of=${encodeURIComponent(state.as_of)}` : '');
    open.textContent = 'Open the entity page';
    const around = document.createElement('button');
    around.type = 'button';
    around.id = 'graph-around';
    around.textContent = 'Draw its neighbourhood';
    around.addEventListener('click', () => {
      state.focus = d.id;
      search.value = d.id;
      load();
    });
    const spread = document.createElement('button');
    spread.type = 'button';
    spread.id = 'graph-activate';
    spread.textContent = 'Show activation';
    spread.addEventListener('click', () => activate(d.id));
    const actions = document.createElement('p');
    actions.className = 'actions';
    actions.append(open, ' ', around, ' ', spread);
    side.append(h, dl, actions);
  }

  function select(node) {
    cy.elements().unselect();
    cy.elements().removeClass('near dim lit');
    node.select();
    node.connectedEdges().addClass('near');
    showSide(node);
  }

  async function activate(id) {
    let response;
    try {
      response = await fetch(`${activationApi}?from=${encodeURIComponent(id)}`,
        { credentials: 'same-origin', cache: 'no-store' });
    } catch (e) {
      say(`The server did not answer (${e.message}).`, true);
      return;
    }
    const body = await response.json().catch(() => null);
    if (!response.ok || !body) {
      say(problem(response, body), true);
      return;
    }
    cy.elements().removeClass('lit dim');
    const reached = new Map(body.nodes.map((n) => [n.id, n.activation]));
    cy.nodes().forEach((n) => {
      const a = reached.get(n.id());
      if (a === undefined) {
        n.addClass('dim');
      } else {
        n.data('glow', 4 + 16 * a);
        n.data('activation', a);
        n.addClass('lit');
      }
    });
    const list = document.createElement('ol');
    list.id = 'graph-activation';
    for (const n of body.nodes.slice(0, 15)) {
      const li = document.createElement('li');
      li.textContent = `${n.id} ${n.activation.toFixed(3)}`;
      li.dataset.id = n.id;
      list.appendChild(li);
    }
    const h = document.createElement('h3');
    h.textContent = `Activation from ${body.from}`;
    side.append(h, list);
    if (body.nodes.length === 0) {
      say(`${body.from} spreads no activation: only active entities pass it on or receive it.`);
      return;
    }
    const missing = body.nodes.length - body.nodes.filter((n) => cy.getElementById(n.id).nonempty()).length;
    if (missing > 0) say(`${missing} of the entities it reaches are not drawn here; draw its neighbourhood to see them.`);
  }

  cy.on('tap', 'node', (e) => {
    const n = e.target;
    if (n.hasClass('cluster')) {
      state.type = n.data('kind');
      state.focus = '';
      search.value = '';
      load();
      return;
    }
    select(n);
  });
  cy.on('dbltap', 'node', (e) => {
    if (!e.target.hasClass('cluster')) window.location.href = entityBase + encodeURIComponent(e.target.id());
  });
  cy.on('tap', (e) => {
    if (e.target === cy) {
      cy.elements().unselect().removeClass('near dim lit');
      showSide(null);
    }
  });

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    state.focus = search.value.trim();
    state.depth = depth.value;
    load();
  });
  typeSel.addEventListener('change', () => { state.type = typeSel.value; load(); });
  relSel.addEventListener('change', () => { state.relation = relSel.value; load(); });
  depth.addEventListener('change', () => { state.depth = depth.value; if (state.focus) load(); });
  slider.addEventListener('input', () => { dateOut.textContent = sliderDate() || 'now'; });
  slider.addEventListener('change', () => {
    state.as_of = sliderDate();
    asOf.value = state.as_of;
    load();
  });
  $('graph-reset').addEventListener('click', () => {
    Object.assign(state, { focus: '', type: '', relation: '', as_of: '' });
    search.value = '';
    asOf.value = '';
    load();
  });
  document.addEventListener('cogmem:change', () => load());

  load();
})();
