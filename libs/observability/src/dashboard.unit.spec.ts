// The Grafana dashboard under deploy/ is checked statically: every query of every panel names only
// metrics a service exports, so a renamed metric cannot leave a panel silently empty.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FleetMetrics } from './index.js';

const DASHBOARD = fileURLToPath(new URL('../../../deploy/grafana/rloop-dashboard.json', import.meta.url));

interface Panel {
  readonly title: string;
  readonly targets?: readonly { readonly expr: string }[];
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
const exported = new Set(new FleetMetrics('dashboard-spec', { journal: true }).seriesNames());

describe('deploy/grafana/rloop-dashboard.json', () => {
  it('queries, in every panel, only metrics the services export', () => {
    expect(dashboard.panels.length).toBeGreaterThan(10);
    for (const panel of dashboard.panels) {
      const names = (panel.targets ?? []).flatMap((t) => [...t.expr.matchAll(/\brloop_[a-z0-9_]+/g)].map((m) => m[0]));
      expect({ panel: panel.title, hasQuery: names.length > 0 }).toEqual({ panel: panel.title, hasQuery: true });
      expect({ panel: panel.title, unknown: names.filter((n) => !exported.has(n)) }).toEqual({
        panel: panel.title,
        unknown: [],
      });
    }
  });

  it('has a panel for each kind of metric the issue asks for', () => {
    const queried = new Set(
      dashboard.panels.flatMap((p) =>
        (p.targets ?? []).flatMap((t) =>
          [...t.expr.matchAll(/\brloop_[a-z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, '')),
        ),
      ),
    );
    for (const metric of [
      'rloop_rounds_started_total',
      'rloop_round_duration_seconds',
      'rloop_critic_duration_seconds',
      'rloop_critic_failures_total',
      'rloop_letters_written_total',
      'rloop_fixes_total',
      'rloop_escalations_total',
      'rloop_loop_outcomes_total',
      'rloop_llm_tokens_total',
      'rloop_llm_cost_usd_total',
      'rloop_bus_redeliveries_total',
      'rloop_bus_messages_settled_total',
      'rloop_journal_append_duration_seconds',
      'rloop_journal_append_batch_size',
    ]) {
      expect({ metric, queried: queried.has(metric) }).toEqual({ metric, queried: true });
    }
  });
});
