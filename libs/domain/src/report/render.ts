import type { LoopReport } from './loop-report.js';

const SPARKS = '▁▂▃▄▅▆▇█';

/** A Unicode sparkline of counts (scaled to the largest), e.g. `█▅▂▁`. */
export function sparkline(counts: readonly number[]): string {
  const max = Math.max(0, ...counts);
  return counts
    .map((n) =>
      max === 0 ? SPARKS[0] : SPARKS[Math.min(SPARKS.length - 1, Math.round((n / max) * (SPARKS.length - 1)))],
    )
    .join('');
}

/** Text from repositories and models, safe inside a Markdown table cell or line (no markup of its own). */
function md(text: string): string {
  return text.replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

function seconds(msValue: number | null): string {
  if (msValue === null) return '–';
  const s = Math.round(msValue / 1000);
  return s < 90 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

function usd(value: number): string {
  return `$${value.toFixed(2)}`;
}

function short(commit: string | null): string {
  return commit === null ? '–' : commit.slice(0, 12);
}

/** The report as Markdown, for people and for chat (the trend as sparklines). */
export function renderReportMarkdown(report: LoopReport): string {
  const t = report.trend;
  const lines: string[] = [
    `# ${md(report.plan)}: ${report.outcome}`,
    '',
    `**${md(report.title)}** — ${md(report.why)}.`,
    '',
    `Run \`${report.run_id}\`, started ${report.started_at}${report.ended_at === null ? '' : `, ended ${report.ended_at} (${seconds(report.duration_ms)})`}; ${report.rounds.length} round(s), ${report.commits.length} commit(s)${report.branch === null ? '' : ` on \`${md(report.branch)}\``}, LLM spend ${usd(report.cost_usd)}.`,
    '',
    '## Trend',
    '',
    t.rounds.length === 0
      ? '_no letters yet_'
      : `| severity | rounds ${t.rounds[0]}–${t.rounds.at(-1)} | counts |\n|---|---|---|`,
    ...(t.rounds.length === 0
      ? []
      : (['critical', 'medium', 'low'] as const).map((s) => `| ${s} | \`${sparkline(t[s])}\` | ${t[s].join(' → ')} |`)),
    '',
    '## Key moments',
    '',
    ...(report.key_moments.length === 0
      ? ['_none_']
      : report.key_moments.map((m) => `- round ${m.round}: ${md(m.text)}`)),
    '',
    '## What was fixed',
    '',
    ...(report.fixed.length === 0
      ? ['_nothing_']
      : [
          '| finding | severity | file | round | commit |',
          '|---|---|---|---|---|',
          ...report.fixed.map(
            (f) => `| ${md(f.title)} | ${f.severity} | \`${md(f.file)}\` | ${f.round} | ${short(f.commit)} |`,
          ),
        ]),
    '',
    '## What remains open',
    '',
    ...(report.open.length === 0
      ? ['_nothing_']
      : [
          '| finding | severity | where | raised by |',
          '|---|---|---|---|',
          ...report.open.map(
            (f) => `| ${md(f.title)} | ${f.severity} | \`${md(f.file)}:${f.line}\` | ${md(f.raised_by)} |`,
          ),
        ]),
    '',
    '## Learnings',
    '',
    ...(report.learnings.length === 0
      ? ['_none from earlier loops_']
      : report.learnings.map(
          (l) =>
            `- \`${md(l.finding_type)}\` (${md(l.critic_id)}): seen in ${l.loops} loops, fixed ${l.fixed} times, stuck ${l.stuck} times — e.g. ${md(l.example_title)}`,
        )),
    '',
    '## Tests added',
    '',
    ...(report.tests_added.length === 0
      ? ['_none_']
      : report.tests_added.map((x) => `- round ${x.round}: \`${md(x.test)}\``)),
    '',
    '## Rounds',
    '',
    '| round | phase | critical | medium | low | fix | commit | time | cost |',
    '|---|---|---|---|---|---|---|---|---|',
    ...report.rounds.map(
      (r) =>
        `| ${r.round} | ${r.phase.replace('_', ' ')} | ${r.counts?.critical ?? '–'} | ${r.counts?.medium ?? '–'} | ${r.counts?.low ?? '–'} | ${r.fix?.outcome ?? '–'} | ${short(r.fix?.commit ?? null)} | ${seconds(r.duration_ms)} | ${usd(r.cost_usd)} |`,
    ),
    ...(report.escalation === null
      ? []
      : [
          '',
          '## Escalation',
          '',
          `Reason: ${report.escalation.reason} — ${md(report.escalation.detail)}`,
          '',
          `Recommended: ${md(report.escalation.recommended_action)}`,
        ]),
    ...(report.handoff === null ? [] : ['', '## Where the branch is left', '', md(report.handoff.summary)]),
    '',
  ];
  return lines.join('\n');
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

const COLOURS = { critical: '#c62828', medium: '#ef8f00', low: '#5c8fd6' } as const;

/** Open findings per round as stacked bars (inline SVG: the report is one self-contained file). */
function trendSvg(report: LoopReport): string {
  const t = report.trend;
  if (t.rounds.length === 0) return '<p>No letters yet.</p>';
  const width = 640;
  const height = 220;
  const pad = 32;
  const totals = t.rounds.map((_, i) => (t.critical[i] ?? 0) + (t.medium[i] ?? 0) + (t.low[i] ?? 0));
  const max = Math.max(1, ...totals);
  const step = (width - 2 * pad) / t.rounds.length;
  const bar = Math.max(4, step * 0.6);
  const y = (n: number): number => ((height - 2 * pad) * n) / max;
  const parts: string[] = [];
  t.rounds.forEach((round, i) => {
    let base = height - pad;
    const x = pad + i * step + (step - bar) / 2;
    for (const severity of ['critical', 'medium', 'low'] as const) {
      const n = t[severity][i] ?? 0;
      if (n === 0) continue;
      const h = y(n);
      base -= h;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${base.toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}" fill="${COLOURS[severity]}"><title>round ${round}: ${n} ${severity}</title></rect>`,
      );
    }
    parts.push(
      `<text x="${(x + bar / 2).toFixed(1)}" y="${height - pad + 14}" font-size="11" text-anchor="middle">${round}</text>`,
    );
    parts.push(
      `<text x="${(x + bar / 2).toFixed(1)}" y="${(height - pad - y(totals[i] ?? 0) - 4).toFixed(1)}" font-size="11" text-anchor="middle">${totals[i] ?? 0}</text>`,
    );
  });
  const legend = (['critical', 'medium', 'low'] as const)
    .map(
      (s, i) =>
        `<rect x="${pad + i * 90}" y="6" width="10" height="10" fill="${COLOURS[s]}"/><text x="${pad + i * 90 + 14}" y="15" font-size="11">${s}</text>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="open findings per round, stacked by severity" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${legend}<line x1="${pad}" y1="${height - pad}" x2="${width - pad}" y2="${height - pad}" stroke="#888"/>${parts.join('')}</svg>`;
}

function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '<p><em>none</em></p>';
  return `<table><thead><tr>${headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

/** The report as one self-contained HTML page (no scripts, no external resources; every text escaped). */
export function renderReportHtml(report: LoopReport): string {
  const e = escapeHtml;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>${e(report.plan)}: ${e(report.outcome)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;color:#222}table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}th{background:#f4f4f4}code{background:#f4f4f4;padding:0 .2rem}.outcome{font-weight:600}</style></head>
<body>
<h1>${e(report.plan)}: <span class="outcome">${e(report.outcome)}</span></h1>
<p><strong>${e(report.title)}</strong> — ${e(report.why)}.</p>
<p>Run <code>${e(report.run_id)}</code>, started ${e(report.started_at)}${report.ended_at === null ? '' : `, ended ${e(report.ended_at)} (${e(seconds(report.duration_ms))})`}; ${report.rounds.length} round(s), ${report.commits.length} commit(s)${report.branch === null ? '' : ` on <code>${e(report.branch)}</code>`}, LLM spend ${e(usd(report.cost_usd))}.</p>
<h2>Trend</h2>
${trendSvg(report)}
<h2>Key moments</h2>
${report.key_moments.length === 0 ? '<p><em>none</em></p>' : `<ul>${report.key_moments.map((m) => `<li>round ${m.round}: ${e(m.text)}</li>`).join('')}</ul>`}
<h2>What was fixed</h2>
${table(
  ['finding', 'severity', 'file', 'round', 'commit'],
  report.fixed.map((f) => [f.title, f.severity, f.file, String(f.round), short(f.commit)]),
)}
<h2>What remains open</h2>
${table(
  ['finding', 'severity', 'where', 'raised by'],
  report.open.map((f) => [f.title, f.severity, `${f.file}:${f.line}`, f.raised_by]),
)}
<h2>Learnings</h2>
${table(
  ['finding type', 'critic', 'loops', 'fixed', 'stuck', 'example'],
  report.learnings.map((l) => [
    l.finding_type,
    l.critic_id,
    String(l.loops),
    String(l.fixed),
    String(l.stuck),
    l.example_title,
  ]),
)}
<h2>Tests added</h2>
${table(
  ['round', 'test'],
  report.tests_added.map((x) => [String(x.round), x.test]),
)}
<h2>Rounds</h2>
${table(
  ['round', 'phase', 'critical', 'medium', 'low', 'fix', 'commit', 'time', 'cost'],
  report.rounds.map((r) => [
    String(r.round),
    r.phase.replace('_', ' '),
    String(r.counts?.critical ?? '–'),
    String(r.counts?.medium ?? '–'),
    String(r.counts?.low ?? '–'),
    r.fix?.outcome ?? '–',
    short(r.fix?.commit ?? null),
    seconds(r.duration_ms),
    usd(r.cost_usd),
  ]),
)}
${report.escalation === null ? '' : `<h2>Escalation</h2><p>${e(report.escalation.reason)}: ${e(report.escalation.detail)}</p><p>Recommended: ${e(report.escalation.recommended_action)}</p>`}
${report.handoff === null ? '' : `<h2>Where the branch is left</h2><p>${e(report.handoff.summary)}</p>`}
</body></html>
`;
}
