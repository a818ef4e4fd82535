// The Refinement Loop console: a single page over the console service's API. Everything shown
// comes from plans, repositories and models, so it is untrusted: text is only ever set through
// textContent (or drawn on a canvas), never parsed as HTML.
'use strict';

(function () {
  const main = document.getElementById('main');
  const TOKEN_KEY = 'rloop-console-token';
  const NAME_KEY = 'rloop-console-name';
  const TERMINAL = new Set(['converged', 'bypassed', 'rejected', 'stopped']);
  const COLOURS = { critical: '#c62828', medium: '#ef8f00', low: '#5c8fd6' };
  const PHASE_BANDS = {
    critical: 'rgba(198,40,40,0.07)',
    medium: 'rgba(239,143,0,0.08)',
    low: 'rgba(92,143,214,0.08)',
    final_sweep: 'rgba(46,125,50,0.08)',
  };
  let session = { can_act: false };
  let refresh = null;
  // Each route change starts a new generation; a page's late answer (a live update that was on its
  // way) must not draw over the page that replaced it.
  let generation = 0;
  const current = (mine) => mine === generation;
  let chart = null;

  // ── tiny DOM helpers (text only) ───────────────────────────────────────────────────────────
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = String(value);
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const text = (value) => document.createTextNode(value === null || value === undefined ? '–' : String(value));
  function replace(node, ...children) {
    node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  }
  const loopHref = (plan) => `#/loop/${encodeURIComponent(plan)}`;

  function age(iso) {
    if (!iso) return '–';
    const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (s < 90) return `${s}s`;
    if (s < 5400) return `${Math.round(s / 60)}m`;
    if (s < 172800) return `${Math.round(s / 3600)}h`;
    return `${Math.round(s / 86400)}d`;
  }
  const seconds = (ms) =>
    ms === null || ms === undefined
      ? '–'
      : ms < 90000
        ? `${(ms / 1000).toFixed(1)} s`
        : `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
  const statusBadge = (status) => el('span', { class: `status status-${status}`, text: status });

  // ── API ─────────────────────────────────────────────────────────────────────────────────────
  function authHeaders() {
    const token = sessionStorage.getItem(TOKEN_KEY);
    return token ? { authorization: `Bearer ${token}` } : {};
  }
  async function get(path) {
    const response = await fetch(path, { headers: authHeaders() });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(body.error || `${path}: ${response.status}`);
    return body;
  }
  async function post(path, body) {
    const name = localStorage.getItem(NAME_KEY);
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders() },
      body: JSON.stringify({ ...body, ...(name ? { by: name } : {}) }),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.error || `${path}: ${response.status}`);
    return answer;
  }

  // ── session (ops token) ─────────────────────────────────────────────────────────────────────
  async function loadSession() {
    session = await get('/api/session').catch(() => ({ can_act: false, reason: 'the console does not answer' }));
    const label = document.getElementById('session');
    label.textContent = session.can_act ? `signed in: ${session.by}` : 'read-only';
    label.title = session.can_act ? '' : session.reason || '';
    const signedIn = Boolean(sessionStorage.getItem(TOKEN_KEY));
    document.getElementById('token').hidden = signedIn || session.via === 'proxy';
    document.getElementById('who').hidden = signedIn || session.via === 'proxy';
    document.getElementById('signin-button').hidden = signedIn || session.via === 'proxy';
    document.getElementById('signout-button').hidden = !signedIn;
  }
  document.getElementById('signin').addEventListener('submit', async (event) => {
    event.preventDefault();
    const token = document.getElementById('token').value.trim();
    const name = document.getElementById('who').value.trim();
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    if (name) localStorage.setItem(NAME_KEY, name);
    document.getElementById('token').value = '';
    await loadSession();
    route();
  });
  document.getElementById('signout-button').addEventListener('click', async () => {
    sessionStorage.removeItem(TOKEN_KEY);
    await loadSession();
    route();
  });

  // ── live updates (server-sent events fed by the journal's committed feed) ──────────────────
  function connectLive() {
    const live = document.getElementById('live');
    const source = new EventSource('/api/events');
    let lost = false;
    // Back after a lost stream, or told the console's NATS connection came back: what happened
    // meanwhile is only in the journal, so the page reads it again from there.
    const resync = () => refresh && refresh.run();
    source.addEventListener('open', () => {
      live.textContent = 'live';
      live.className = 'live on';
      if (lost) resync();
      lost = false;
    });
    source.addEventListener('error', () => {
      live.textContent = 'reconnecting…';
      live.className = 'live';
      lost = true;
    });
    source.addEventListener('resync', resync);
    let timer = null;
    source.addEventListener('loop', (message) => {
      let update;
      try {
        update = JSON.parse(message.data);
      } catch {
        return;
      }
      if (refresh === null || !refresh.wants(update)) return;
      clearTimeout(timer);
      timer = setTimeout(() => refresh && refresh.run(), 250);
    });
  }

  // ── Loops ────────────────────────────────────────────────────────────────────────────────────
  async function loopsPage(filter) {
    const select = el('select', {
      id: 'status-filter',
      'aria-label': 'status',
      onchange: () => (location.hash = `#/loops${select.value ? `?status=${encodeURIComponent(select.value)}` : ''}`),
    });
    for (const status of [
      '',
      'queued',
      'reviewing',
      'fixing',
      'escalated',
      'converged',
      'bypassed',
      'stopped',
      'rejected',
    ])
      select.append(el('option', { value: status, text: status || 'every status' }));
    select.value = filter;
    const body = el('tbody');
    const table = el(
      'table',
      { id: 'loops' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['plan', 'status', 'phase', 'round'].map((h) => el('th', { text: h })),
          el('th', { class: 'num sev-critical', text: 'critical' }),
          el('th', { class: 'num sev-medium', text: 'medium' }),
          el('th', { class: 'num sev-low', text: 'low' }),
          el('th', { class: 'num', text: 'spend' }),
          el('th', { class: 'num', text: 'age' }),
        ),
      ),
      body,
    );
    replace(
      main,
      el('h1', { text: 'Loops' }),
      el('div', { class: 'toolbar' }, el('label', { for: 'status-filter', text: 'Status' }), select),
      table,
    );
    const mine = generation;
    async function draw() {
      const { plans } = await get(`/api/loops${filter ? `?status=${encodeURIComponent(filter)}` : ''}`);
      if (!current(mine)) return;
      replace(
        body,
        plans.length === 0
          ? el(
              'tr',
              {},
              el('td', {
                colspan: 9,
                class: 'muted',
                text: 'No loops yet — post a plan with `rloop submit plan.yaml`.',
              }),
            )
          : plans.map((p) => {
              const c = p.counts || {};
              return el(
                'tr',
                { 'data-plan': p.plan },
                el('td', {}, el('a', { href: loopHref(p.plan), text: p.plan })),
                // A queued loop (scope locking) names the loops it waits for.
                el(
                  'td',
                  { title: p.waiting_for && p.waiting_for.length > 0 ? `waits for ${p.waiting_for.join(', ')}` : '' },
                  statusBadge(p.status),
                ),
                el('td', { text: p.phase ? p.phase.replace('_', ' ') : '–' }),
                el('td', { class: 'num', text: p.round }),
                el('td', { class: 'num sev-critical' }, text(c.critical)),
                el('td', { class: 'num sev-medium' }, text(c.medium)),
                el('td', { class: 'num sev-low' }, text(c.low)),
                el('td', { class: 'num', text: `$${Number(p.spend_usd || 0).toFixed(2)}` }),
                el('td', { class: 'num', title: p.started_at || '', text: age(p.started_at) }),
              );
            }),
      );
    }
    refresh = { wants: () => true, run: () => draw().catch(showError) };
    await draw();
  }

  // ── A loop ───────────────────────────────────────────────────────────────────────────────────
  function capRounds(report, softCaps, capBonus) {
    // The round at which each phase reaches its soft cap (first round of the phase + cap + bonus - 1).
    const firsts = new Map();
    for (const r of report.rounds) if (!firsts.has(r.phase)) firsts.set(r.phase, r.round);
    return [...firsts]
      .map(([phase, first]) => ({ phase, round: first + (softCaps[phase] || 0) + (capBonus[phase] || 0) - 1 }))
      .filter((c) => softCaps[c.phase]);
  }

  function drawChart(canvas, data) {
    const report = data.report;
    const rounds = report.rounds;
    const labels = rounds.map((r) => `round ${r.round}`);
    const series = (severity) => rounds.map((r) => (r.counts ? r.counts[severity] : null));
    const caps = capRounds(report, data.soft_caps, data.cap_bonus);
    const drops = new Set(report.key_moments.filter((m) => m.kind === 'drop').map((m) => m.round));
    const overlay = {
      id: 'rloopOverlay',
      beforeDatasetsDraw(c) {
        const { ctx, chartArea, scales } = c;
        const width = scales.x.width / Math.max(1, rounds.length);
        ctx.save();
        rounds.forEach((r, i) => {
          ctx.fillStyle = PHASE_BANDS[r.phase] || 'transparent';
          ctx.fillRect(
            scales.x.getPixelForValue(i) - width / 2,
            chartArea.top,
            width,
            chartArea.bottom - chartArea.top,
          );
          if (i === 0 || rounds[i - 1].phase !== r.phase) {
            ctx.fillStyle = '#555';
            ctx.font = '11px system-ui';
            ctx.fillText(r.phase.replace('_', ' '), scales.x.getPixelForValue(i) - width / 2 + 4, chartArea.top + 12);
          }
        });
        ctx.restore();
      },
      afterDatasetsDraw(c) {
        const { ctx, chartArea, scales } = c;
        const width = scales.x.width / Math.max(1, rounds.length);
        ctx.save();
        ctx.font = '12px system-ui';
        ctx.textAlign = 'center';
        for (const cap of caps) {
          const i = rounds.findIndex((r) => r.round === cap.round);
          if (i < 0) continue;
          const x = scales.x.getPixelForValue(i) + width / 2;
          ctx.strokeStyle = '#444';
          ctx.setLineDash([5, 4]);
          ctx.beginPath();
          ctx.moveTo(x, chartArea.top);
          ctx.lineTo(x, chartArea.bottom);
          ctx.stroke();
          ctx.setLineDash([]);
          ctx.fillStyle = '#444';
          ctx.fillText(`${cap.phase.replace('_', ' ')} soft cap`, x, chartArea.top + 26);
        }
        rounds.forEach((r, i) => {
          const x = scales.x.getPixelForValue(i);
          if (r.fix) {
            ctx.fillStyle =
              r.fix.outcome === 'committed' ? '#2e7d32' : r.fix.outcome === 'reverted' ? '#c62828' : '#777';
            ctx.fillText(
              r.fix.outcome === 'committed'
                ? '✓ fix applied'
                : r.fix.outcome === 'reverted'
                  ? '↺ fix reverted'
                  : `· fix ${r.fix.outcome}`,
              x,
              scales.x.bottom + 14,
            );
          }
          if (drops.has(r.round)) {
            const total = r.counts ? r.counts.critical + r.counts.medium + r.counts.low : 0;
            ctx.fillStyle = '#6639ba';
            ctx.fillText('★ key moment', x, scales.y.getPixelForValue(total) - 8);
          }
        });
        ctx.restore();
      },
    };
    if (chart !== null) chart.destroy();
    chart = new window.Chart(canvas, {
      type: 'bar',
      data: {
        labels,
        datasets: ['critical', 'medium', 'low'].map((severity) => ({
          label: severity,
          data: series(severity),
          backgroundColor: COLOURS[severity],
          stack: 'open',
        })),
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        layout: { padding: { bottom: 18 } },
        scales: {
          x: { stacked: true },
          y: {
            stacked: true,
            beginAtZero: true,
            grace: '20%',
            ticks: { precision: 0 },
            title: { display: true, text: 'open findings' },
          },
        },
        plugins: {
          legend: { position: 'top' },
          title: { display: true, text: 'Open findings per round, by severity' },
        },
      },
      plugins: [overlay],
    });
  }

  function renderDiff(patch) {
    return el(
      'pre',
      { class: 'diff' },
      patch.split('\n').map((line) =>
        el(
          'span',
          {
            class:
              line.startsWith('+') && !line.startsWith('+++')
                ? 'add'
                : line.startsWith('-') && !line.startsWith('---')
                  ? 'del'
                  : line.startsWith('@@')
                    ? 'hunk'
                    : '',
          },
          `${line}\n`,
        ),
      ),
    );
  }

  function renderLetter(letter) {
    return el(
      'div',
      { class: 'letter' },
      el('p', {}, el('strong', { text: `Letter ${letter.letter_id}` }), ` — ${letter.summary}`),
      el('p', {
        class: 'muted',
        text: `${letter.counts.critical} critical, ${letter.counts.medium} medium, ${letter.counts.low} low · ${letter.complete ? 'every core critic reported' : 'incomplete: a core critic did not report'} · commit ${letter.commit.slice(0, 12)}`,
      }),
      letter.findings.length === 0
        ? el('p', { class: 'muted', text: 'No findings.' })
        : letter.findings.map((f, i) =>
            el(
              'div',
              { class: `finding ${f.severity}` },
              el('div', {}, el('strong', { text: `${i + 1}. ${f.title}` })),
              el('div', {
                class: 'muted',
                text: `${f.severity} (${f.score}/10) · ${f.category} · ${f.finding_type} · ${f.file}:${f.line_range.start}${f.line_range.end !== f.line_range.start ? `-${f.line_range.end}` : ''} · ${f.raised_by}`,
              }),
              el('div', {}, el('em', { text: 'Now: ' }), f.current_behaviour),
              el('div', {}, el('em', { text: 'Expected: ' }), f.expected_behaviour),
            ),
          ),
      letter.disagreements.length === 0
        ? null
        : el('p', {
            class: 'notice',
            text: `Critics disagree on ${letter.disagreements.length} place(s): ${letter.disagreements.map((d) => `${d.file}:${d.line_range.start} (${d.critic_ids.join(' vs ')})`).join('; ')}`,
          }),
    );
  }

  function roundEntry(r) {
    const counts = r.counts
      ? `${r.counts.critical} critical · ${r.counts.medium} medium · ${r.counts.low} low`
      : 'no letter yet';
    const fix = r.fix ? ` · fix ${r.fix.outcome}${r.fix.commit ? ` ${r.fix.commit.slice(0, 10)}` : ''}` : '';
    const letterBox = el('div', {
      class: 'letter-box muted',
      text: r.letter_id ? 'Opening the letter…' : 'No letter for this round.',
    });
    const details = el(
      'details',
      { class: 'round', 'data-round': r.round },
      el(
        'summary',
        {},
        el('strong', { text: `Round ${r.round}` }),
        ` · ${r.phase.replace('_', ' ')} · ${counts}${fix} · ${seconds(r.duration_ms)}`,
      ),
      el('h3', { text: 'Critics' }),
      el(
        'table',
        { class: 'critics' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { text: 'critic' }),
            el('th', { text: 'outcome' }),
            el('th', { class: 'num', text: 'findings' }),
            el('th', { class: 'num', text: 'duration' }),
          ),
        ),
        el(
          'tbody',
          {},
          r.critics.map((c) =>
            el(
              'tr',
              {},
              el('td', { text: c.critic_id }),
              el('td', { class: c.outcome === 'reported' ? '' : 'error', text: c.outcome }),
              el('td', { class: 'num', text: c.findings }),
              el('td', { class: 'num', text: seconds(c.duration_ms) }),
            ),
          ),
        ),
      ),
      el('h3', { text: 'Letter' }),
      letterBox,
      r.fix
        ? el('h3', {
            text: `Fix: ${r.fix.outcome} (${r.fix.strategy}, ${r.fix.lines_changed} lines, ${seconds(r.fix.duration_ms)})`,
          })
        : null,
      r.fix && r.fix.reason ? el('p', { class: 'muted', text: r.fix.reason }) : null,
      r.fix && r.fix.patch ? renderDiff(r.fix.patch) : null,
    );
    let opened = false;
    details.addEventListener('toggle', () => {
      if (!details.open || opened || !r.letter_id) return;
      opened = true;
      get(`/api/letters/${encodeURIComponent(r.letter_id)}`).then(
        ({ letter }) => replace(letterBox, renderLetter(letter)),
        (error) => replace(letterBox, el('span', { class: 'error', text: error.message })),
      );
      letterBox.className = 'letter-box';
    });
    return details;
  }

  function decisionForms(data, redraw, notice, drafts) {
    const status = data.status;
    // What the last decision came to stays on the page across the redraw it causes.
    const message = el('span', { class: 'muted', role: 'status', text: notice.text });
    const act = async (button, path, body) => {
      button.disabled = true;
      message.textContent = 'recording the decision…';
      message.className = 'muted';
      try {
        const answer = await post(path, body);
        notice.text = answer.resumed ? `resumed; the loop is ${answer.status}` : 'stopped';
        message.textContent = notice.text;
        for (const id of Object.keys(drafts)) delete drafts[id];
        await redraw();
      } catch (error) {
        message.textContent = error.message;
        message.className = 'error';
        button.disabled = false;
      }
    };
    // The page redraws on every event of the loop (a branch handed off, a resume elsewhere), so what
    // the person has typed lives in `drafts`, outside the redraw, and the new inputs start from it.
    const draftInput = (id, attributes) => {
      const input = el('input', { id, ...attributes });
      input.value = drafts[id] ?? '';
      input.addEventListener('input', () => {
        drafts[id] = input.value;
      });
      return input;
    };
    const note = draftInput('resume-note', { type: 'text', placeholder: 'note for the journal', maxlength: 4000 });
    const cap = draftInput('resume-cap', {
      type: 'number',
      min: 1,
      max: 100,
      placeholder: '+rounds',
      title: 'extra rounds for the phase beyond its soft cap',
    });
    const resume = el(
      'button',
      {
        type: 'button',
        id: 'resume',
        disabled: !session.can_act || status !== 'escalated',
        onclick: () =>
          act(resume, `/api/loops/${encodeURIComponent(data.plan)}/resume`, {
            ...(note.value ? { note: note.value } : {}),
            ...(cap.value ? { raise_cap: Number(cap.value) } : {}),
          }),
      },
      'Resume',
    );
    const stopNote = draftInput('stop-note', { type: 'text', placeholder: 'why stop', maxlength: 4000 });
    const stop = el(
      'button',
      {
        type: 'button',
        id: 'stop',
        disabled: !session.can_act || TERMINAL.has(status),
        onclick: () =>
          act(stop, `/api/loops/${encodeURIComponent(data.plan)}/stop`, stopNote.value ? { note: stopNote.value } : {}),
      },
      'Stop',
    );
    return el(
      'div',
      { class: 'actions' },
      el('fieldset', {}, el('legend', { text: 'Resume' }), note, cap, resume),
      el('fieldset', {}, el('legend', { text: 'Stop' }), stopNote, stop),
      session.can_act ? message : el('span', { class: 'muted', text: session.reason || 'read-only' }),
    );
  }

  async function loopPage(plan) {
    replace(main, el('p', { class: 'muted', text: `Loading ${plan}…` }));
    const openRounds = new Set();
    const notice = { text: '' };
    const drafts = {};
    const mine = generation;
    async function draw() {
      main.querySelectorAll('details.round[open]').forEach((d) => openRounds.add(d.getAttribute('data-round')));
      const data = await get(`/api/loops/${encodeURIComponent(plan)}`);
      if (!current(mine)) return;
      const focused = document.activeElement && document.activeElement.id;
      const report = data.report;
      const canvas = el('canvas', {
        id: 'convergence',
        role: 'img',
        'aria-label': 'open findings per round, stacked by severity',
      });
      const rounds = report.rounds.map(roundEntry);
      replace(
        main,
        el('h1', {}, `${report.plan} `, statusBadge(data.status)),
        el('p', {}, el('strong', { text: report.title }), ` — ${report.why}.`),
        el('p', {
          class: 'muted',
          text: `round ${data.round} · ${data.phase.replace('_', ' ')} phase · ${report.commits.length} commit(s)${report.branch ? ` on ${report.branch}` : ''} · LLM spend $${report.cost_usd.toFixed(2)} · run ${report.run_id}`,
        }),
        decisionForms(data, draw, notice, drafts),
        el('div', { class: 'chart-box' }, canvas),
        el('h2', { text: 'Key moments' }),
        report.key_moments.length === 0
          ? el('p', { class: 'muted', text: 'None yet.' })
          : el(
              'ul',
              { id: 'key-moments' },
              report.key_moments.map((m) => el('li', { text: `round ${m.round}: ${m.text}` })),
            ),
        report.escalation ? el('h2', { text: 'Escalation report' }) : null,
        report.escalation
          ? el('p', {}, el('strong', { text: 'Recommended: ' }), report.escalation.recommended_action)
          : null,
        report.escalation ? el('pre', { id: 'escalation-report', text: report.escalation.markdown }) : null,
        report.handoff ? el('p', { id: 'handoff' }, el('strong', { text: 'Branch: ' }), report.handoff.summary) : null,
        el('h2', { text: 'Rounds' }),
        el('div', { id: 'rounds' }, rounds),
      );
      rounds.forEach((d) => {
        if (openRounds.has(d.getAttribute('data-round'))) d.open = true;
      });
      if (focused) document.getElementById(focused)?.focus();
      drawChart(canvas, data);
    }
    refresh = { wants: (update) => update.plan === plan, run: () => draw().catch(showError) };
    await draw();
  }

  // ── Escalations ──────────────────────────────────────────────────────────────────────────────
  async function escalationsPage() {
    const body = el('tbody');
    replace(
      main,
      el('h1', { text: 'Escalations' }),
      el('p', {
        class: 'muted',
        text: 'Loops waiting for a person, newest first. Open one to read its report and resume or stop it.',
      }),
      el(
        'table',
        { id: 'escalations' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ...['raised', 'plan', 'reason', 'round', 'what fired', 'recommended action'].map((h) =>
              el('th', { text: h }),
            ),
          ),
        ),
        body,
      ),
    );
    const mine = generation;
    async function draw() {
      const { escalations } = await get('/api/escalations');
      if (!current(mine)) return;
      replace(
        body,
        escalations.length === 0
          ? el('tr', {}, el('td', { colspan: 6, class: 'muted', text: 'No loop is waiting for a person.' }))
          : escalations.map((e) =>
              el(
                'tr',
                { 'data-plan': e.plan },
                el('td', { title: e.raised_at, text: `${age(e.raised_at)} ago` }),
                el('td', {}, el('a', { href: loopHref(e.plan), text: e.plan })),
                el('td', { text: e.reason }),
                el('td', { class: 'num', text: e.round }),
                el('td', { text: e.detail }),
                el('td', { text: e.recommended_action }),
              ),
            ),
      );
    }
    refresh = {
      wants: (update) =>
        update.types.some((t) => t === 'EscalationRaised' || t === 'LoopResumed' || t === 'LoopStopped'),
      run: () => draw().catch(showError),
    };
    await draw();
  }

  // ── Critics ──────────────────────────────────────────────────────────────────────────────────
  async function criticsPage() {
    const body = el('tbody');
    const note = el('p', { class: 'muted' });
    replace(
      main,
      el('h1', { text: 'Critics' }),
      note,
      el(
        'table',
        { id: 'critics' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { text: 'critic' }),
            el('th', { text: 'evidence' }),
            el('th', { text: 'health' }),
            el('th', { class: 'num', text: 'instances' }),
            el('th', { text: 'last heartbeat' }),
            el('th', { class: 'num', text: 'rounds' }),
            el('th', { class: 'num', text: 'failure rate' }),
            el('th', { text: 'failures' }),
          ),
        ),
        body,
      ),
    );
    const mine = generation;
    async function draw() {
      const data = await get('/api/critics');
      if (!current(mine)) return;
      note.textContent = `Registry from the bus; failure rates over the last ${data.rounds_looked_at} rounds in the journal.`;
      replace(
        body,
        data.critics.map((c) =>
          el(
            'tr',
            { 'data-critic': c.critic_id },
            el('td', { text: c.critic_id }),
            el('td', { text: c.evidence || '–' }),
            el('td', { class: c.health === 'alive' ? '' : 'error', text: c.health }),
            el('td', { class: 'num', text: c.instances }),
            el('td', { title: c.last_heartbeat || '', text: c.last_heartbeat ? `${age(c.last_heartbeat)} ago` : '–' }),
            el('td', { class: 'num', text: c.dispatched }),
            el('td', { class: 'num', text: c.failure_rate === null ? '–' : `${(c.failure_rate * 100).toFixed(1)}%` }),
            el('td', {
              text:
                Object.entries(c.reasons)
                  .map(([reason, n]) => `${reason} ×${n}`)
                  .join(', ') || '–',
            }),
          ),
        ),
      );
    }
    refresh = { wants: () => false, run: () => draw().catch(showError) };
    await draw();
  }

  // ── routing ──────────────────────────────────────────────────────────────────────────────────
  function showError(error) {
    main.append(el('p', { class: 'error', text: error.message }));
  }

  async function route() {
    const hash = location.hash || '#/loops';
    const [path, query] = hash.slice(1).split('?');
    const params = new URLSearchParams(query || '');
    const page = path.split('/')[1] || 'loops';
    document
      .querySelectorAll('[data-nav]')
      .forEach((a) =>
        a.classList.toggle(
          'active',
          a.getAttribute('data-nav') === page || (page === 'loop' && a.getAttribute('data-nav') === 'loops'),
        ),
      );
    refresh = null;
    generation += 1;
    try {
      if (page === 'loop') await loopPage(decodeURIComponent(path.split('/')[2] || ''));
      else if (page === 'escalations') await escalationsPage();
      else if (page === 'critics') await criticsPage();
      else await loopsPage(params.get('status') || '');
    } catch (error) {
      replace(main, el('p', { class: 'error', text: error.message }));
    }
  }

  // `rloop console` opens the page with the ops token in the fragment (never sent to a server): keep it for this tab and drop it from the address bar.
  const fromFragment = /^#token=([^&]+)/.exec(location.hash);
  if (fromFragment) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(fromFragment[1]));
    history.replaceState(null, '', `${location.pathname}#/loops`);
  }
  window.addEventListener('hashchange', route);
  loadSession().then(route);
  connectLive();
})();
