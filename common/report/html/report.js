// acp-trace --format=html: the page's one script. It reads the report's data from the JSON block
// acp-trace wrote and builds the page with DOM calls: every string of the capture reaches the page
// as text (textContent, attribute values), never as markup; the diagrams are the SVG acp-trace
// drew, parsed as XML (DOMParser), which holds no script.
'use strict';
(function () {
  const data = JSON.parse(document.getElementById('acp-data').textContent);
  const strings = data.strings;
  const col = {};
  data.conversations.columns.forEach((name, i) => { col[name] = i; });
  const rows = data.conversations.rows;
  // Conversations of one request (MCP's) say their method and what it names (the tool, prompt or
  // resource): the page then shows, filters and tallies them; a page of none leaves them out.
  const requests = rows.some(r => cell(r, 'method') !== null);
  const PAGE_ROWS = 100;
  const METHODS_MAX = 50;
  const SVG_NS = 'http://www.w3.org/2000/svg';
  // The table opens with the problems first: violated conversations, then those with findings.
  const state = { outcome: '', protocol: '', agent: '', method: '', subject: '', search: '', sort: 'problems', descending: false,
                  page: 0, shown: [], selected: -1 };
  const diagnostics = data.diagnostics.rows;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c);
    return e;
  }
  // A name of the data: an index in the string table, or the string itself.
  function str(v) { return v === null || v === undefined ? '' : typeof v === 'number' ? strings[v] : v; }
  function cell(row, name) { return row[col[name]]; }
  // A name or an id as the diagrams show it (common/report/diagram.c): a character that acts on
  // the text or shows as nothing (controls, bidi overrides and isolates, zero-width and other
  // invisible ones, blanks at either end) written as \u{XXXX}, a C0 control as \n, \r, \t or
  // \xNN, a backslash doubled; so that conv-1 and conv-1 with a U+200B look apart, and nothing
  // reverses the text around it.
  const HIDDEN = [[0x80, 0xa0], [0xad, 0xad], [0x600, 0x605], [0x61c, 0x61c], [0x6dd, 0x6dd],
    [0x70f, 0x70f], [0x890, 0x891], [0x8e2, 0x8e2], [0x1680, 0x1680], [0x180e, 0x180e],
    [0x2000, 0x200f], [0x2028, 0x202f], [0x205f, 0x206f], [0x3000, 0x3000], [0xfdd0, 0xfdef],
    [0xfeff, 0xfeff], [0xfff9, 0xfffb], [0x110bd, 0x110bd], [0x110cd, 0x110cd], [0x13430, 0x1343f],
    [0x1bca0, 0x1bca3], [0x1d173, 0x1d17a], [0xe0000, 0xe007f]];
  function hidden(cp) {
    return (cp & 0xfffe) === 0xfffe || (cp >= 0xd800 && cp <= 0xdfff) || HIDDEN.some(([lo, hi]) => cp >= lo && cp <= hi);
  }
  function codePoint(cp) { return '\\u{' + cp.toString(16).toUpperCase().padStart(4, '0') + '}'; }
  function visible(text) {
    const chars = [...String(text)];
    let lead = 0, trail = chars.length;
    while (lead < trail && chars[lead] === ' ') lead++;
    while (trail > lead && chars[trail - 1] === ' ') trail--;
    return chars.map((c, i) => {
      const cp = c.codePointAt(0);
      if (c === '\\') return '\\\\';
      if (c === ' ') return i < lead || i >= trail ? codePoint(cp) : c;
      if (c === '\n') return '\\n';
      if (c === '\r') return '\\r';
      if (c === '\t') return '\\t';
      if (cp < 0x20 || cp === 0x7f) return '\\x' + cp.toString(16).padStart(2, '0');
      return hidden(cp) ? codePoint(cp) : c;
    }).join('');
  }
  // A name of the data as the page shows it.
  function shown(v) { return visible(str(v)); }
  function seconds(s) {
    if (s === null || s === undefined) return '';
    if (Math.abs(s) < 1) return (Math.round(s * 1000) / 1000) + ' s';
    if (Math.abs(s) < 60) return (Math.round(s * 100) / 100) + ' s';
    const m = Math.floor(s / 60);
    return m < 60 ? m + 'm' + Math.round(s - 60 * m) + 's' : Math.floor(m / 60) + 'h' + (m % 60) + 'm';
  }
  function time(t) {
    if (t === null || t === undefined) return '';
    const d = new Date(t * 1000);
    return isNaN(d.getTime()) ? String(t) : d.toISOString().replace('T', ' ').replace('Z', '');
  }
  function count(n) { return el('td', { class: 'n', text: String(n) }); }
  // A row's outcome as the table shows it: a failed request with its error's code.
  function outcomeCell(r) {
    const outcome = str(cell(r, 'outcome')), code = cell(r, 'error_code');
    return el('td', { class: 'outcome ' + outcome, 'data-outcome': outcome,
                      text: outcome + (code === null || code === undefined ? '' : ' (' + code + ')') });
  }
  // What a request asked and of what: "tools/call echo".
  function request(r) {
    const subject = cell(r, 'subject');
    return shown(cell(r, 'method')) + (subject === null ? '' : ' ' + shown(subject));
  }

  // ---- the statistics ----
  function tallyTable(id, caption, tally, other, otherName) {
    const t = el('table', { id: id }, el('caption', { text: caption }));
    for (const [name, n] of Object.entries(tally)) {
      t.append(el('tr', { 'data-name': name }, el('td', { text: visible(name) }), count(n)));
    }
    if (other) t.append(el('tr', { class: 'other' }, el('td', { text: otherName }), count(other)));
    return t;
  }
  function statsSection() {
    const st = data.stats;
    const s = el('section', { id: 'stats' }, el('h2', { text: 'Statistics' }));
    const agents = Object.keys(st.agents).length;
    s.append(el('p', { class: 'totals' },
      el('span', { id: 'stat-messages', text: String(st.messages) }), ' messages, ',
      el('span', { id: 'stat-agents', text: String(agents) }),
      st.other_agents ? ' agents (and others, counted together), ' : ' agents, ',
      el('span', { id: 'stat-conversations', text: String(rows.length) }), ' conversations'));
    const outcomes = el('table', { id: 'outcomes' }, el('caption', { text: 'Outcomes by protocol' }));
    for (const [protocol, tally] of Object.entries(st.conversations)) {
      for (const [outcome, n] of Object.entries(tally)) {
        outcomes.append(el('tr', { 'data-protocol': protocol, 'data-outcome': outcome },
          el('td', { text: visible(protocol) }), el('td', { class: 'outcome ' + outcome, text: outcome }), count(n)));
      }
    }
    const anomalies = tallyTable('anomalies', 'Anomalies by code', st.anomalies, 0, '');
    anomalies.querySelectorAll('tr[data-name]').forEach(tr => {
      tr.classList.add('code');
      tr.title = 'list its diagnostics';
      tr.addEventListener('click', () => showDiagnostics(tr.dataset.name));
    });
    const kinds = tallyTable('kinds', 'Messages by kind', st.kinds, st.other_kinds, '(other kinds)');
    const latency = el('table', { id: 'latency' }, el('caption', { text: 'Latency' }),
      el('tr', {}, ...['pair', 'count', 'min', 'p50', 'p90', 'p99', 'max', 'histogram'].map(h => el('th', { text: h }))));
    for (const [pair, p] of Object.entries(st.latency)) {
      const h = st.histograms.latency[pair];
      latency.append(el('tr', { 'data-name': pair }, el('td', { text: visible(pair) }), count(p.count),
        ...['min', 'p50', 'p90', 'p99', 'max'].map(k => el('td', { class: 'n', text: seconds(p[k]) })),
        el('td', {}, histogram(h, st.histograms))));
    }
    const tables = el('div', { class: 'tables' }, outcomes, anomalies, kinds);
    if (requests) tables.append(methodTable());
    s.append(tables, latency,
      el('div', { id: 'diagnostics' }));
    return s;
  }

  // Requests by method, and by method and tool, prompt or resource: how many, and how they
  // ended; a row selected filters the table to them. The most frequent METHODS_MAX, since a
  // method is any name the input gives.
  function methodTable() {
    const tally = new Map();
    const add = (method, subject, outcome) => {
      const key = JSON.stringify([method, subject]);
      const t = tally.get(key) || { method, subject, n: 0, outcomes: {} };
      t.n++;
      t.outcomes[outcome] = (t.outcomes[outcome] || 0) + 1;
      tally.set(key, t);
    };
    for (const r of rows) {
      if (cell(r, 'method') === null) continue;
      const method = str(cell(r, 'method')), outcome = str(cell(r, 'outcome'));
      add(method, null, outcome);
      if (cell(r, 'subject') !== null) add(method, str(cell(r, 'subject')), outcome);
    }
    const all = [...tally.values()].sort((a, b) => a.method < b.method ? -1 : a.method > b.method ? 1 :
      a.subject === null ? -1 : b.subject === null ? 1 : a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0);
    const top = new Set([...all].filter(t => t.subject === null).sort((a, b) => b.n - a.n).slice(0, METHODS_MAX).map(t => t.method));
    const t = el('table', { id: 'methods' }, el('caption', { text: 'Requests by method' }),
      el('tr', {}, ...['method, and tool, prompt or resource', 'requests', 'outcomes'].map(h => el('th', { text: h }))));
    let other = 0;
    for (const m of all) {
      if (!top.has(m.method)) {
        if (m.subject === null) other += m.n;
        continue;
      }
      const ended = Object.entries(m.outcomes).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([o, n]) => o + ' ' + n).join(', ');
      const tr = el('tr', { class: m.subject === null ? 'method' : 'method subject', 'data-method': m.method },
        el('td', { text: m.subject === null ? visible(m.method) : '\u2003' + visible(m.subject) }), count(m.n),
        el('td', { text: ended }));
      if (m.subject !== null) tr.dataset.subject = m.subject;
      tr.title = 'show these requests in the table';
      tr.addEventListener('click', () => {
        chooseFilter('method', m.method);
        chooseFilter('subject', m.subject === null ? '' : m.subject);
        refresh();
        document.getElementById('conversations').scrollIntoView();
      });
      t.append(tr);
    }
    if (other) t.append(el('tr', { class: 'other' }, el('td', { text: '(other methods)' }), count(other), el('td')));
    return t;
  }

  // ---- the diagnostics of one code, each opening its conversation ----
  function dcell(d, name) { return d[data.diagnostics.columns.indexOf(name)]; }
  function showDiagnostics(code) {
    const box = document.getElementById('diagnostics');
    const mine = diagnostics.filter(d => dcell(d, 'code') === code);
    const list = el('ul', { class: 'findings' });
    for (const d of mine) {
      const row = dcell(d, 'row');
      const where = shown(dcell(d, 'file')) + ':' + dcell(d, 'line');
      const li = el('li', { class: dcell(d, 'severity') });
      if (row === null) {
        li.append(el('span', { class: 'where', text: where }), ' ' + dcell(d, 'message') + ' (no conversation)');
      } else {
        const open = el('button', { type: 'button', class: 'where', text: where });
        open.addEventListener('click', () => {
          select(row);
          document.getElementById('detail').scrollIntoView();
        });
        li.append(open, ' ' + dcell(d, 'message') + ' ', el('span', { class: 'conversation', text: shown(cell(rows[row], 'conversation')) }));
      }
      list.append(li);
    }
    const omitted = data.omitted.diagnostics ? ' (the page lists the first ' + data.omitted.diagnostics_max +
      ' diagnostics of the run)' : '';
    box.replaceChildren(el('h3', { text: code + ': ' + mine.length + ' diagnostic' + (mine.length === 1 ? '' : 's') + omitted }), list);
    box.scrollIntoView();
  }

  // A latency histogram (log buckets, bucket i holding (base^(i-1), base^i]) drawn as bars, a bar
  // a tenth of a decade, in an SVG made with DOM calls.
  function histogram(h, scheme) {
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('class', 'histogram');
    svg.setAttribute('width', '240');
    svg.setAttribute('height', '56');
    if (!h) return svg;
    const bins = new Map();
    const zeroBin = Math.floor(Math.log10(scheme.zero) * 10) - 1;
    for (const [index, n] of h.positive) {
      const bin = Math.floor(Math.log10(Math.max(Math.pow(scheme.base, index), scheme.zero)) * 10);
      bins.set(bin, (bins.get(bin) || 0) + n);
    }
    if (h.zero) bins.set(zeroBin, (bins.get(zeroBin) || 0) + h.zero);
    if (!bins.size) return svg;
    const keys = [...bins.keys()];
    const lo = Math.min(...keys), hi = Math.max(...keys), most = Math.max(...bins.values());
    const width = 240 / (hi - lo + 1);
    for (const [bin, n] of bins) {
      const bar = document.createElementNS(SVG_NS, 'rect');
      const height = Math.max(1, 38 * n / most);
      bar.setAttribute('x', String((bin - lo) * width));
      bar.setAttribute('y', String(40 - height));
      bar.setAttribute('width', String(Math.max(1, width - 1)));
      bar.setAttribute('height', String(height));
      const title = document.createElementNS(SVG_NS, 'title');
      title.textContent = n + (bin === zeroBin ? ' at 0 s' : ' up to ' + seconds(Math.pow(10, (bin + 1) / 10)));
      bar.append(title);
      svg.append(bar);
    }
    axis(svg, lo, hi, width, zeroBin);
    return svg;
  }
  function tickLabel(s) {
    const round = v => String(Number(v.toPrecision(3)));
    if (s < 1e-3) return round(s * 1e6) + ' µs';
    if (s < 1) return round(s * 1e3) + ' ms';
    return s < 60 ? round(s) + ' s' : seconds(s);
  }
  // The histogram's axis, in seconds on a log scale: a tick at each power of ten it spans (its
  // ends when it spans fewer than two), labelled.
  function axis(svg, lo, hi, width, zeroBin) {
    const line = document.createElementNS(SVG_NS, 'line');
    line.setAttribute('class', 'axis');
    line.setAttribute('x1', '0');
    line.setAttribute('x2', '240');
    line.setAttribute('y1', '40.5');
    line.setAttribute('y2', '40.5');
    svg.append(line);
    // every power of ten, or every second or third when they are many, so that labels fit
    const decades = Math.floor((hi + 1) / 10) - Math.ceil(lo / 10) + 1, step = Math.max(1, Math.ceil(decades / 4));
    const ticks = [];
    for (let bin = lo; bin <= hi + 1; bin++) if (bin % (10 * step) === 0) ticks.push(bin);
    if (ticks.length < 2) ticks.splice(0, ticks.length, lo, hi + 1);
    for (const bin of ticks) {
      const x = Math.min(238, Math.max(2, (bin - lo) * width));
      const label = document.createElementNS(SVG_NS, 'text');
      label.setAttribute('class', 'tick');
      label.setAttribute('x', String(x));
      label.setAttribute('y', '53');
      label.setAttribute('text-anchor', x < 20 ? 'start' : x > 220 ? 'end' : 'middle');
      label.textContent = bin <= zeroBin ? '0' : tickLabel(Math.pow(10, bin / 10));
      svg.append(label);
    }
  }

  // ---- the table of conversations ----
  function filterSelect(name, values, any) {
    const select = el('select', { id: 'filter-' + name }, el('option', { value: '', text: any || 'any ' + name }));
    for (const v of [...values].sort()) select.append(el('option', { value: v, text: visible(v) }));
    select.addEventListener('change', () => { state[name] = select.value; refresh(); });
    return select;
  }
  // Sets a filter as its menu would, the menu showing it.
  function chooseFilter(name, value) {
    state[name] = value;
    document.getElementById('filter-' + name).value = value;
  }
  function namesOf(column) {
    const names = new Set();
    rows.forEach(r => { if (cell(r, column) !== null) names.add(str(cell(r, column))); });
    return names;
  }
  function conversationsSection() {
    const s = el('section', { id: 'conversations' }, el('h2', { text: 'Conversations' }));
    const outcomes = new Set(rows.map(r => str(cell(r, 'outcome'))));
    const protocols = new Set(rows.map(r => str(cell(r, 'protocol'))));
    const agents = new Set();
    rows.forEach(r => cell(r, 'participants').forEach(a => agents.add(str(a))));
    const sort = el('select', { id: 'sort' }, ...['problems', 'time', 'duration', 'latency', 'findings', 'outcome']
      .map(k => el('option', { value: k, text: k === 'problems' ? 'problems first' : 'by ' + k })));
    sort.addEventListener('change', () => { state.sort = sort.value; refresh(); });
    const order = el('button', { id: 'order', type: 'button', text: 'ascending' });
    order.addEventListener('click', () => {
      state.descending = !state.descending;
      order.textContent = state.descending ? 'descending' : 'ascending';
      refresh();
    });
    const search = requests ?
      el('input', { id: 'search', type: 'search', placeholder: 'id, agent, method or tool', 'aria-label': 'find a conversation by its id, an agent, a method or a tool, prompt or resource' }) :
      el('input', { id: 'search', type: 'search', placeholder: 'id or agent', 'aria-label': 'find a conversation by its id or an agent' });
    search.addEventListener('input', () => { state.search = search.value.trim().toLowerCase(); refresh(); });
    const filters = [filterSelect('outcome', outcomes), filterSelect('protocol', protocols), filterSelect('agent', agents)];
    if (requests) {
      filters.push(filterSelect('method', namesOf('method')),
        filterSelect('subject', namesOf('subject'), 'any tool, prompt or resource'));
    }
    s.append(el('div', { class: 'controls' }, search, ...filters, sort, order),
      el('p', { id: 'count' }), el('table', { id: 'conversation-table' }), el('div', { id: 'pager' }));
    return s;
  }
  // How each order ranks a row: smaller first (ascending); null (unknown) last, either way.
  const OUTCOME_RANK = ['violated', 'timeout', 'unanswered', 'open', 'failed', 'refused', 'rejected', 'not-understood', 'cancelled', 'done'];
  function rank(r) {
    switch (state.sort) {
      case 'problems': return (str(cell(r, 'outcome')) === 'violated' ? 0 : cell(r, 'findings') > 0 ? 1 : 2) * 1e9 - cell(r, 'findings');
      case 'findings': return -cell(r, 'findings');
      case 'outcome': { const i = OUTCOME_RANK.indexOf(str(cell(r, 'outcome'))); return i < 0 ? OUTCOME_RANK.length : i; }
      default: return cell(r, { time: 'start', duration: 'duration', latency: 'latency' }[state.sort]);
    }
  }
  function matches(r) {
    const q = state.search;
    const has = v => str(v).toLowerCase().includes(q) || shown(v).toLowerCase().includes(q);
    return !q || has(cell(r, 'conversation')) || cell(r, 'participants').some(has) ||
      (cell(r, 'method') !== null && has(cell(r, 'method'))) || (cell(r, 'subject') !== null && has(cell(r, 'subject')));
  }
  function refresh() {
    state.shown = [];
    const ranks = new Map();
    rows.forEach((r, i) => {
      if ((!state.outcome || str(cell(r, 'outcome')) === state.outcome) &&
          (!state.protocol || str(cell(r, 'protocol')) === state.protocol) &&
          (!state.agent || cell(r, 'participants').some(a => str(a) === state.agent)) &&
          (!state.method || str(cell(r, 'method')) === state.method) &&
          (!state.subject || (cell(r, 'subject') !== null && str(cell(r, 'subject')) === state.subject)) && matches(r)) {
        state.shown.push(i);
        ranks.set(i, rank(r));
      }
    });
    state.shown.sort((a, b) => {
      const x = ranks.get(a), y = ranks.get(b);
      if (x === y) return a - b;
      if (x === null) return 1; // unknown last, either way
      if (y === null) return -1;
      return state.descending ? y - x : x - y;
    });
    state.page = 0;
    drawTable();
  }
  function drawTable() {
    const table = document.getElementById('conversation-table');
    const heads = ['conversation', 'protocol', ...(requests ? ['method', 'tool, prompt or resource'] : []),
      'participants', 'messages', 'start', 'duration', 'latency', 'outcome', 'findings'];
    table.replaceChildren(el('tr', {}, ...heads.map(h => el('th', { text: h }))));
    const first = state.page * PAGE_ROWS;
    for (const i of state.shown.slice(first, first + PAGE_ROWS)) {
      const r = rows[i];
      const asked = requests ? [el('td', { class: 'method', text: shown(cell(r, 'method')) }),
        el('td', { class: 'subject', text: shown(cell(r, 'subject')) })] : [];
      const tr = el('tr', { class: 'conversation' + (i === state.selected ? ' selected' : ''), 'data-row': String(i) },
        el('td', { class: 'id', text: shown(cell(r, 'conversation')) }), el('td', { text: shown(cell(r, 'protocol')) }),
        ...asked, el('td', { text: cell(r, 'participants').map(shown).join(', ') }), count(cell(r, 'messages')),
        el('td', { text: time(cell(r, 'start')) }), el('td', { class: 'n', text: seconds(cell(r, 'duration')) }),
        el('td', { class: 'n', text: seconds(cell(r, 'latency')) }), outcomeCell(r),
        el('td', { class: 'n findings', text: String(cell(r, 'findings')) }));
      tr.addEventListener('click', () => select(i));
      table.append(tr);
    }
    document.getElementById('count').textContent = state.shown.length + ' of ' + rows.length + ' conversations';
    const pages = Math.max(1, Math.ceil(state.shown.length / PAGE_ROWS));
    const previous = el('button', { type: 'button', id: 'previous', text: 'previous' });
    const next = el('button', { type: 'button', id: 'next', text: 'next' });
    previous.disabled = state.page === 0;
    next.disabled = state.page + 1 >= pages;
    previous.addEventListener('click', () => { state.page--; drawTable(); });
    next.addEventListener('click', () => { state.page++; drawTable(); });
    document.getElementById('pager').replaceChildren(previous,
      el('span', { text: ' page ' + (state.page + 1) + ' of ' + pages + ' ' }), next);
  }

  // ---- a conversation: its diagram, and the message behind an arrow ----
  function select(i) {
    state.selected = i;
    drawTable();
    const r = rows[i];
    const detail = document.getElementById('detail');
    const story = data.details[String(i)];
    detail.replaceChildren(el('h2', { text: 'Conversation ' + shown(cell(r, 'conversation')) }),
      el('p', { text: shown(cell(r, 'protocol')) + (cell(r, 'method') === null ? '' : ' ' + request(r)) +
        ', ' + cell(r, 'messages') + ' messages from ' +
        shown(cell(r, 'file')) + ':' + cell(r, 'first_line') + ' to line ' + cell(r, 'last_line') + ', ' +
        outcomeCell(r).textContent }));
    if (!story) {
      detail.append(el('p', { class: 'left-out', text: 'Its messages are left out of this report (see above).' }));
      return;
    }
    const parsed = new DOMParser().parseFromString(story.svg, 'image/svg+xml');
    const diagram = el('div', { id: 'diagram' });
    if (parsed.getElementsByTagName('parsererror').length) {
      diagram.append(el('p', { class: 'left-out', text: 'The diagram could not be read.' }));
    } else {
      diagram.append(document.importNode(parsed.documentElement, true));
    }
    const message = el('div', { id: 'message' }, el('p', { text: 'Select an arrow to read its message.' }));
    diagram.addEventListener('click', event => {
      const arrow = event.target.closest('g.arrow');
      if (!arrow) return;
      const n = Number(arrow.id.replace('arrow-', ''));
      const m = story.messages.find(x => n >= x.arrow && n < x.arrow + x.arrows);
      if (!m) return;
      diagram.querySelectorAll('g.arrow.selected').forEach(g => g.classList.remove('selected'));
      arrow.classList.add('selected');
      showMessage(message, m);
    });
    detail.append(diagram);
    const unseen = story.messages.filter(m => !m.arrows);
    if (unseen.length) {
      const list = el('p', { class: 'unseen', text: 'Messages with no arrow: ' });
      for (const m of unseen) {
        const b = el('button', { type: 'button', text: 'line ' + m.line });
        b.addEventListener('click', () => showMessage(message, m));
        list.append(b, ' ');
      }
      detail.append(list);
    }
    detail.append(message);
  }
  function showMessage(box, m) {
    const findings = el('ul', { class: 'findings' });
    for (const f of m.findings) findings.append(el('li', { class: f.severity, text: f.severity + ' [' + f.code + '] ' + f.message }));
    box.replaceChildren(el('p', { class: 'where', text: shown(m.file) + ':' + m.line }), findings,
      el('pre', { class: 'verbatim', text: m.text }));
  }

  // What the report is of: the captures read, and the span of their message time.
  function heading() {
    const c = data.captures;
    let files = c.files.map(visible).join(', ');
    if (c.more) files += ' and ' + c.more + ' more';
    const span = c.first === null ? 'no message time' :
      time(c.first) + ' to ' + time(c.last) + ' UTC (' + (seconds(c.last - c.first) || '0 s') + ')';
    return el('p', { id: 'captures', text: (files || 'no capture') + ': ' + span });
  }

  function leftOut() {
    const o = data.omitted;
    const notes = [];
    if (o.conversations) {
      notes.push('the messages of ' + o.conversations + ' conversation' + (o.conversations === 1 ? '' : 's') +
        ' (' + o.messages + ' message' + (o.messages === 1 ? '' : 's') + '): the report keeps those of ' +
        o.max_arrows + ' arrows (--max-arrows) and ' + Math.round(o.kept_max / 1048576) +
        ' MiB at most (their text as the page writes it, and their diagrams), conversations with findings first; their rows and the statistics are whole');
    }
    if (o.outside) {
      const kinds = Object.entries(o.outside_kinds).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([k, n]) => visible(k) + ' ' + n);
      if (o.outside_other) kinds.push('other kinds ' + o.outside_other);
      notes.push(o.outside + ' message' + (o.outside === 1 ? '' : 's') +
        ' of no conversation (' + kinds.join(', ') + '), counted in the statistics only');
    }
    if (o.diagnostics) {
      notes.push('the diagnostics past the first ' + o.diagnostics_max + ' (' + o.diagnostics +
        ') from the lists of each code, counted in Anomalies by code');
    }
    return notes.length ? el('p', { class: 'left-out', id: 'left-out', text: 'Left out: ' + notes.join('; ') + '.' }) : '';
  }

  const app = document.getElementById('app');
  app.replaceChildren(el('header', {}, el('h1', { text: 'acp-trace report' }), heading()), leftOut(), statsSection(),
    conversationsSection(), el('section', { id: 'detail' }));
  refresh();
})();
