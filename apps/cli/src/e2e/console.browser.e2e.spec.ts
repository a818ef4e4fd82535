// The console in a real browser (Debian's Chromium driven by playwright-core) against a running
// fleet: a plan converges and the chart shows its rounds; an escalated loop appears in the inbox
// and resuming it from the page lets it go on. Screenshots of each page are written to
// $RLOOP_SCREENSHOT_DIR (docs/screenshots when refreshed by hand), else a temporary directory.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { eventually, freePort } from '@rloop/testing';
import { ALL_SERVICES } from '../fleet/supervisor.js';
import { type TestFleet, samplePlan, startTestFleet } from './fleet.test-helpers.js';

const TOKEN = 'browser-test-ops-token-0123456789';
const CHROMIUM = process.env['RLOOP_CHROMIUM'] ?? '/usr/bin/chromium';
const HOSTILE_TITLE = 'Tidy <img src=x onerror="window.__pwned=1"> helpers';

let t: TestFleet;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let base: string;
let shots: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await startTestFleet({
    services: ALL_SERVICES,
    httpPortOf: (service) => (service === 'console' ? port : null),
    env: { RLOOP_CONSOLE_TOKEN: TOKEN },
    // Small soft caps keep the unfixable loop short and put a cap line on the chart.
    catalogue: (c) => ({ ...c, soft_caps: { critical: 2, medium: 2, low: 2, final_sweep: 2 } }),
  });
  shots = process.env['RLOOP_SCREENSHOT_DIR'] ?? (await mkdtemp(join(tmpdir(), 'rloop-shots-')));
  await mkdir(shots, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(String(error)));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.stop();
}, 60_000);

async function journalRounds(
  plan: string,
): Promise<{ round: number; counts: { critical: number; medium: number; low: number } | null }[]> {
  const { entries } = await t.bus.journal.events(plan);
  return entries
    .flatMap((e) => (e.event.type === 'RoundStarted' ? [{ round: e.event.data.round, counts: null }] : []))
    .map((r) => {
      const letter = entries.find(
        (e) => e.event.type === 'LetterWritten' && e.event.data.letter.round === r.round,
      )?.event;
      return { round: r.round, counts: letter?.type === 'LetterWritten' ? letter.data.letter.counts : null };
    });
}

describe('the console in a real browser, against a running fleet', () => {
  it('shows a loop converge live on the Loops page, then its rounds on the convergence chart', async () => {
    // Signed in through the URL fragment, as `rloop console` opens it; the fragment leaves the address bar.
    await page.goto(`${base}/#token=${TOKEN}`);
    await page.waitForSelector('#loops');
    expect(page.url()).not.toContain(TOKEN);
    await expect(page.locator('#session').textContent()).resolves.toContain('signed in');
    await page.waitForSelector('.live.on');

    const repo = await t.sampleRepo('fixable');
    const reply = await t.submit(samplePlan('browser-fixable', repo, { title: HOSTILE_TITLE }));
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    // The row appears and reaches its outcome through server-sent events: no reload.
    await page.locator('#loops tr[data-plan="browser-fixable"] .status-converged').waitFor({ timeout: 150_000 });
    await page.screenshot({ path: join(shots, 'loops.png') });
    const state = await t.outcome('browser-fixable', reply.event_id);
    expect(state.status).toBe('converged');

    await page.click('#loops a[href="#/loop/browser-fixable"]');
    await page.waitForSelector('#convergence');
    const rounds = await journalRounds('browser-fixable');
    // Runs in the page: Chart.js's own record of what it drew.
    const drawn = await page.evaluate(() => {
      const chart = (
        globalThis as unknown as {
          Chart: {
            getChart(
              id: string,
            ): { data: { labels: string[]; datasets: { label: string; data: (number | null)[] }[] } } | undefined;
          };
        }
      ).Chart.getChart('convergence');
      return chart === undefined
        ? null
        : { labels: chart.data.labels, datasets: chart.data.datasets.map((d) => ({ label: d.label, data: d.data })) };
    });
    expect(drawn?.labels).toEqual(rounds.map((r) => `round ${r.round}`));
    expect(drawn?.datasets.find((d) => d.label === 'critical')?.data).toEqual(
      rounds.map((r) => r.counts?.critical ?? null),
    );
    expect(rounds.length).toBeGreaterThan(1);
    expect(rounds[0]?.counts?.critical).toBeGreaterThan(0);

    // The plan's title is data: shown as text, never run.
    await expect(page.locator('main p strong').first().textContent()).resolves.toBe(HOSTILE_TITLE);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    // A round opens its letter, rendered, with its critics' outcomes and the fix's diff.
    await page.click('details.round[data-round="1"] > summary');
    await page.waitForSelector('details.round[data-round="1"] .finding');
    await expect(page.locator('details.round[data-round="1"] table.critics tbody tr').count()).resolves.toBeGreaterThan(
      2,
    );
    await expect(page.locator('details.round[data-round="1"] pre.diff').textContent()).resolves.toContain('diff --git');
    await page.screenshot({ path: join(shots, 'loop.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  }, 240_000);

  it('lists an escalated loop in the inbox, and resuming it from the page lets the loop go on', async () => {
    const repo = await t.sampleRepo('unfixable');
    const reply = await t.submit(samplePlan('browser-unfixable', repo, { effort_level: 'xhigh' }));
    if (reply.status !== 'accepted') throw new Error(JSON.stringify(reply));
    const escalated = await t.outcome('browser-unfixable', reply.event_id, 180_000);
    expect(escalated.status).toBe('escalated');

    await page.goto(`${base}/#/escalations`);
    const row = page.locator('#escalations tr[data-plan="browser-unfixable"]');
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('rloop resume browser-unfixable');
    await page.screenshot({ path: join(shots, 'escalations.png') });

    await row.locator('a').click();
    await page.waitForSelector('#escalation-report');
    await page.fill('#resume-note', 'raised the cap from the console');
    await page.fill('#resume-cap', '1');
    // The page redraws on every event of the loop (the branch handed off after the escalation comes
    // at any moment); what was typed survives a redraw. An LLM critic's spend journaled for the
    // loop forces one here.
    const heading = await page.$('main h1');
    const { state } = await t.bus.journal.loopState('browser-unfixable');
    await t.bus.client.publishEvent({
      event_id: `browser-usage-${Date.now()}`,
      type: 'UsageRecorded',
      schema_version: 1,
      plan: 'browser-unfixable',
      correlation_id: state?.run_id ?? reply.event_id,
      causation_id: null,
      occurred_at: new Date().toISOString(),
      producer: 'browser-spec',
      data: {
        dispatch: 'browser-spec',
        model: 'claude-test',
        input_tokens: 1,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cost_usd: 0.01,
      },
    });
    await heading?.waitForElementState('hidden');
    await expect(page.inputValue('#resume-note')).resolves.toBe('raised the cap from the console');
    await expect(page.inputValue('#resume-cap')).resolves.toBe('1');
    await page.screenshot({ path: join(shots, 'loop-escalated.png'), fullPage: true });
    await page.click('#resume');
    await page.locator('.actions [role=status]', { hasText: 'resumed' }).waitFor({ timeout: 30_000 });

    // Recorded exactly as `rloop resume` records it: a LoopResumed with the note and the cap, and the loop goes on.
    const { entries } = await t.bus.journal.events('browser-unfixable');
    const resumed = entries.map((e) => e.event).find((e) => e.type === 'LoopResumed');
    expect(resumed?.type === 'LoopResumed' ? resumed.data : null).toMatchObject({
      note: 'raised the cap from the console',
      raise_cap: 1,
      by: 'ops token (console)',
    });
    expect(resumed?.producer).toMatch(/^console@/);
    await eventually(
      async () => {
        const { state } = await t.bus.journal.loopState('browser-unfixable');
        return state !== null && state.round > escalated.round ? state : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 200, description: 'a round after the resume' },
    );
  }, 360_000);

  it('shows the critics registry, and is read-only without the ops token', async () => {
    await page.goto(`${base}/#/critics`);
    await page.locator('#critics tr[data-critic="toolchain/compiler-linter"]').waitFor();
    await expect(page.locator('#critics tr[data-critic="toolchain/compiler-linter"]').textContent()).resolves.toContain(
      'alive',
    );
    await page.screenshot({ path: join(shots, 'critics.png') });

    const anonymous = await browser.newPage();
    try {
      await anonymous.goto(`${base}/#/loop/browser-fixable`);
      await anonymous.waitForSelector('#convergence');
      await expect(anonymous.locator('#session').textContent()).resolves.toBe('read-only');
      expect(await anonymous.locator('#stop').isDisabled()).toBe(true);
      const refused = await anonymous.evaluate(
        async () =>
          (
            await fetch('/api/loops/browser-unfixable/stop', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{}',
            })
          ).status,
      );
      expect(refused).toBe(403);
    } finally {
      await anonymous.close();
    }
  }, 60_000);
});
