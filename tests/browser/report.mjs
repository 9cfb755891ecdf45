// Opens acp-trace --format=html reports in headless Chromium (puppeteer, tests/package.json) the
// way a person would, and writes what it saw as one JSON object a page, for tests/report.bats to
// compare with what acp-trace says of the same capture. One browser for all the pages.
// Usage: node report.mjs SHOTS-DIR PAGE.html...  (screenshots SHOTS-DIR/NAME-STATE.png; results
// PAGE.html.json beside each page)
//        node report.mjs --first-screen PAGE.html  (bench/run: milliseconds to the first screen)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer';

const FLAGS = ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'acp-report-chromium.'));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [...FLAGS, '--user-data-dir=' + profile],
    protocolTimeout: 120000,
  });
  return { browser, close: async () => { await browser.close(); rmSync(profile, { recursive: true, force: true }); } };
}

// A page opened with everything it says and asks for recorded.
async function open(browser, file) {
  const url = pathToFileURL(resolve(file)).href;
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const seen = { console: [], errors: [], requests: [], dialogs: [] };
  page.on('console', m => { if (m.type() === 'error' || m.type() === 'warn') seen.console.push(m.type() + ': ' + m.text()); });
  page.on('pageerror', e => seen.errors.push(String(e)));
  page.on('dialog', d => { seen.dialogs.push(d.message()); d.dismiss(); });
  page.on('request', r => { if (r.url() !== url && !r.url().startsWith('data:')) seen.requests.push(r.url()); });
  await page.goto(url, { waitUntil: 'load', timeout: 60000 });
  return { page, seen };
}

async function shot(page, dir, name, state) {
  await page.screenshot({ path: join(dir, name + '-' + state + '.png') });
}

async function visit(browser, file, dir) {
  const name = basename(file, '.html');
  const { page, seen } = await open(browser, file);
  const r = { seen };
  await shot(page, dir, name, 'loaded');
  // what the first screen shows, read in one go (each call to the page costs a round trip)
  Object.assign(r, await page.evaluate(() => {
    const text = sel => { const e = document.querySelector(sel); return e ? e.textContent : null; };
    const number = sel => { const t = text(sel); return t === null ? null : Number(t); };
    return {
      messages: number('#stat-messages'),
      conversations: number('#stat-conversations'),
      count: text('#count'),
      outcomes: [...document.querySelectorAll('#outcomes tr[data-protocol]')].map(tr =>
        [tr.cells[0].textContent, tr.cells[1].textContent, Number(tr.cells[2].textContent)]),
      anomalies: Object.fromEntries([...document.querySelectorAll('#anomalies tr[data-name]')].map(tr =>
        [tr.cells[0].textContent, Number(tr.cells[1].textContent)])),
      left_out: text('#left-out'),
      captures: text('#captures'),
      // the first page of the table as it opens: problems first
      opening: [...document.querySelectorAll('#conversation-table tr.conversation')].map(tr =>
        [tr.querySelector('td.outcome').dataset.outcome, Number(tr.querySelector('td.findings').textContent)]),
      // the table's headings, and each MCP request's cells as the table shows them
      headings: [...document.querySelectorAll('#conversation-table th')].map(th => th.textContent),
      requests: [...document.querySelectorAll('#conversation-table tr.conversation')].filter(tr => tr.querySelector('td.method') && tr.querySelector('td.method').textContent)
        .map(tr => [tr.querySelector('td.id').textContent, tr.querySelector('td.method').textContent,
                    tr.querySelector('td.subject').textContent, tr.querySelector('td.outcome').textContent]),
      // Requests by method: [method, tool or null, requests, outcomes]
      methods: document.getElementById('methods') && [...document.querySelectorAll('#methods tr.method')].map(tr =>
        [tr.dataset.method, tr.dataset.subject === undefined ? null : tr.dataset.subject, Number(tr.cells[1].textContent), tr.cells[2].textContent]),
      axes: [...document.querySelectorAll('#latency svg.histogram')].map(svg =>
        [svg.querySelectorAll('line.axis').length, [...svg.querySelectorAll('text.tick')].map(t => t.textContent)]),
      scripts: document.querySelectorAll('script').length,
      images: document.querySelectorAll('img, iframe, object, embed').length,
      page_text: text('#app'),
    };
  }));

  // each outcome's filter: how many conversations it shows (the first chosen as a person does,
  // the others from within the page)
  r.by_outcome = {};
  const outcomes = await page.$$eval('#filter-outcome option', os => os.map(o => o.value).filter(v => v));
  if (outcomes.length) {
    await page.select('#filter-outcome', outcomes[0]);
    await shot(page, dir, name, 'filtered');
    Object.assign(r.by_outcome, await page.evaluate(all => {
      const select = document.getElementById('filter-outcome');
      const shown = {};
      for (const o of all) {
        select.value = o;
        select.dispatchEvent(new Event('change'));
        shown[o] = Number(document.getElementById('count').textContent.split(' ')[0]);
      }
      select.value = '';
      select.dispatchEvent(new Event('change'));
      return shown;
    }, outcomes));
  }

  // the other filters and each order, from within the page: how many conversations each
  // protocol and agent shows, and whether the rows shown come in the order asked for (by the
  // data's own values, unknown last)
  Object.assign(r, await page.evaluate(() => {
    const data = JSON.parse(document.getElementById('acp-data').textContent);
    const col = Object.fromEntries(data.conversations.columns.map((c, i) => [c, i]));
    const shownCount = () => Number(document.getElementById('count').textContent.split(' ')[0]);
    const choose = (id, value) => {
      const select = document.getElementById(id);
      select.value = value;
      select.dispatchEvent(new Event('change'));
    };
    const counts = id => {
      const shown = {};
      for (const o of [...document.querySelectorAll('#' + id + ' option')].map(o => o.value).filter(v => v)) {
        choose(id, o);
        shown[o] = shownCount();
      }
      choose(id, '');
      return shown;
    };
    const by_protocol = counts('filter-protocol'), by_agent = counts('filter-agent');
    const by_method = document.getElementById('filter-method') ? counts('filter-method') : null;
    const by_subject = document.getElementById('filter-subject') ? counts('filter-subject') : null;
    const sorted = {};
    const order = document.getElementById('order');
    for (const key of ['time', 'duration', 'latency']) {
      choose('sort', key);
      for (const descending of [false, true]) {
        if (descending) order.click();
        const values = [...document.querySelectorAll('#conversation-table tr.conversation')]
          .map(tr => data.conversations.rows[Number(tr.dataset.row)][col[key === 'time' ? 'start' : key]]);
        const known = values.filter(v => v !== null);
        const inOrder = known.every((v, i) => i === 0 || (descending ? known[i - 1] >= v : known[i - 1] <= v)) &&
          values.slice(known.length).every(v => v === null);
        sorted[key + (descending ? ' descending' : '')] = inOrder && values.length > 0;
        if (descending) order.click();
      }
    }
    // by findings (most first when ascending) and by outcome (violated first)
    const RANK = ['violated', 'timeout', 'unanswered', 'open', 'failed', 'refused', 'rejected', 'not-understood', 'cancelled', 'done'];
    for (const [key, value] of [['findings', r => -r[col.findings]], ['outcome', r => RANK.indexOf(data.strings[r[col.outcome]])]]) {
      choose('sort', key);
      const values = [...document.querySelectorAll('#conversation-table tr.conversation')]
        .map(tr => value(data.conversations.rows[Number(tr.dataset.row)]));
      sorted[key] = values.length > 0 && values.every((v, i) => i === 0 || values[i - 1] <= v);
    }
    choose('sort', 'time');
    return { by_protocol, by_agent, by_method, by_subject, sorted };
  }));

  // the search box, as a person types in it: the id of the table's last row, then an agent
  r.search = {};
  const last = await page.evaluate(() => {
    const data = JSON.parse(document.getElementById('acp-data').textContent);
    const rows = data.conversations.rows;
    return rows.length ? rows[rows.length - 1][0] : null;
  });
  if (last) {
    await page.type('#search', last);
    r.search.id = last;
    r.search.found = await page.$$eval('#conversation-table tr.conversation', trs => trs.map(tr => tr.cells[0].textContent));
    r.search.count = await page.$eval('#count', e => e.textContent);
    await page.$eval('#search', e => { e.value = ''; e.dispatchEvent(new Event('input')); });
  }

  // Requests by method: a tool's row clicked as a person does filters the table to its requests;
  // then its name typed in the search box finds them too
  r.method_clicked = null;
  const subjectRow = await page.$('#methods tr.method.subject');
  if (subjectRow) {
    await subjectRow.click();
    r.method_clicked = await page.evaluate(() => ({
      method: document.getElementById('filter-method').value, subject: document.getElementById('filter-subject').value,
      count: document.getElementById('count').textContent,
      shown: [...document.querySelectorAll('#conversation-table tr.conversation td.id')].map(td => td.textContent),
    }));
    await page.select('#filter-method', '');
    await page.select('#filter-subject', '');
    await page.type('#search', r.method_clicked.subject);
    r.method_clicked.searched = await page.$$eval('#conversation-table tr.conversation td.id', tds => tds.map(td => td.textContent));
    await page.$eval('#search', e => { e.value = ''; e.dispatchEvent(new Event('input')); });
  }

  // Anomalies by code: each code's list, and its first line with a conversation opened
  r.codes = await page.evaluate(() => {
    const out = {};
    for (const tr of document.querySelectorAll('#anomalies tr.code')) {
      tr.click();
      out[tr.dataset.name] = [...document.querySelectorAll('#diagnostics li')].map(li => ({
        where: li.querySelector('.where').textContent,
        conversation: li.querySelector('.conversation') ? li.querySelector('.conversation').textContent : null,
      }));
    }
    return out;
  });
  r.opened = null;
  const code = Object.keys(r.codes).find(c => r.codes[c].some(d => d.conversation));
  if (code) {
    await page.click('#anomalies tr.code[data-name="' + code + '"]');
    const i = r.codes[code].findIndex(d => d.conversation);
    await page.click('#diagnostics li:nth-child(' + (i + 1) + ') button.where');
    r.opened = { code, line: r.codes[code][i].where, conversation: r.codes[code][i].conversation,
                 detail: await page.$eval('#detail h2', e => e.textContent),
                 arrows: await page.$$eval('#diagram g.arrow', gs => gs.length) };
  }

  // every conversation on the first page of the table, selected: its diagram's arrows (a real
  // mouse click on the first few, the others clicked from within the page, which is quicker)
  const rows = await page.$$eval('#conversation-table tr.conversation', trs => trs.map(tr => Number(tr.dataset.row)));
  // in the page: selects (or, click false, only reads) each row's conversation
  const inspect = (which, click) => which.map(row => {
    const tr = document.querySelector('#conversation-table tr[data-row="' + row + '"]');
    if (click) tr.click();
    return { row, conversation: tr.querySelector('td.id').textContent, findings: Number(tr.querySelector('td.findings').textContent),
             arrows: document.querySelectorAll('#diagram g.arrow').length,
             diagram: document.querySelectorAll('#diagram > svg').length,
             left_out: document.querySelectorAll('#detail .left-out').length };
  });
  r.selected = [];
  for (const row of rows.slice(0, 3)) {
    await page.click('#conversation-table tr[data-row="' + row + '"]');
    r.selected.push(...await page.evaluate(inspect, [row], false));
  }
  r.selected.push(...await page.evaluate(inspect, rows.slice(3), true));
  // the first conversation with findings and a diagram (else with a diagram): each arrow's
  // message, the arrow clicked on its head
  r.arrows = [];
  const drawn = r.selected.find(s => s.arrows > 0 && s.findings > 0) || r.selected.find(s => s.arrows > 0);
  r.clicked = drawn ? drawn.row : null;
  if (drawn) {
    await page.click('#conversation-table tr[data-row="' + drawn.row + '"]');
    await shot(page, dir, name, 'conversation');
    const heads = await page.$$('#diagram g.arrow polygon');
    for (const head of heads) {
      await head.click();
      r.arrows.push(await page.evaluate(() => {
        const text = sel => { const e = document.querySelector(sel); return e ? e.textContent : null; };
        const g = document.querySelector('#diagram g.arrow.selected');
        return { id: g ? g.id : null, title: text('#diagram g.arrow.selected > title'),
                 where: text('#message .where'), text: text('#message pre.verbatim'),
                 findings: [...document.querySelectorAll('#message ul.findings li')].map(li => li.textContent) };
      }));
    }
    if (heads.length) await shot(page, dir, name, 'message');
  }
  r.canary = await page.evaluate(() => window.acpCanary === undefined ? null : window.acpCanary);
  await page.close();
  return r;
}

// How long a person waits for the first screen: from asking for the page to its table drawn.
async function firstScreen(browser, file) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const start = Date.now();
  await page.goto(pathToFileURL(resolve(file)).href, { waitUntil: 'load', timeout: 120000 });
  await page.waitForSelector('#conversation-table tr', { timeout: 120000 });
  await page.evaluate(() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done))));
  const ms = Date.now() - start;
  await page.close();
  return ms;
}

const args = process.argv.slice(2);
const t0 = Date.now();
const { browser, close } = await launch();
if (process.env.ACP_REPORT_TIMES) console.error('launched in', Date.now() - t0, 'ms');
try {
  if (args[0] === '--first-screen') {
    console.log(await firstScreen(browser, args[1]));
  } else {
    const [dir, ...pages] = args;
    for (const file of pages) writeFileSync(file + '.json', JSON.stringify(await visit(browser, file, dir)) + '\n');
  }
} finally {
  await close();
}
