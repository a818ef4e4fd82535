import type { Finding, JournaledEvent, Letter } from '@rloop/contracts';
import { deterministicId } from '../identity/ids.js';
import { phaseIncludes } from '../phases/phases.js';
import type { LoopConfig } from './config.js';
import { criticDisagreement, repeatedDisagreements } from './critic-disagreement.js';
import type { Firing } from './firing.js';
import { flatTrendFiring } from './flat-trend.js';
import { implementerWall } from './implementer-wall.js';
import {
  type FindingRef,
  type Histogram,
  type LearningDelta,
  type LoopDetection,
  type LoopMemory,
  type MemoryStep,
  type PresenceState,
  type RoundHistoryRow,
  type RunSummaryRow,
  type Tracker,
  type TrendPoint,
  initialLoopMemory,
} from './memory-model.js';
import { oscillation, oscillations } from './oscillation.js';
import { persistentIssue } from './persistent-issue.js';
import { NO_STALL, countStall, stall } from './stall.js';
import { type Draft, type Mutable, addSegment, draftOf, matchReports, refOf, restartStreak } from './trackers.js';
import { isInfraFailure, keyMomentOf, topScoreAverage } from './trend.js';

// The loop memory's evolve: one pure function over one committed event (evolveMemory, at the end).
// Its shape is memory-model.ts, following issues across rounds trackers.ts, each heuristic a file.
export * from './memory-model.js';

const TRACKER_EVENTS: ReadonlySet<string> = new Set(['RoundStarted', 'LetterWritten', 'FixApplied']);

const MAX_FIRED = 50;
const MAX_EDGES = 50;
const MAX_FINGERPRINTS = 8;
const MAX_HISTORY_DETECTIONS = 20;
const MAX_RUN_LIST = 100;
const MAX_EDGE_PAIRS = 25;
/** Distinct attempt signatures remembered per stretch (more than any wall threshold needs). */
const MAX_SIGNATURES = 10;

/** Histogram values at or above this share the top bucket, so a histogram stays small however long the loop. */
const HISTOGRAM_TOP = 20;

function bump(histogram: Histogram, value: number): Histogram {
  const key = String(Math.min(HISTOGRAM_TOP, Math.max(0, Math.round(value))));
  return { ...histogram, [key]: (histogram[key] ?? 0) + 1 };
}

// ── The fold ─────────────────────────────────────────────────────────────────────────────────

interface Context {
  readonly d: Draft;
  readonly event: JournaledEvent;
  readonly position: number;
  readonly config: LoopConfig;
  detections: LoopDetection[];
  learnings: LearningDelta[];
  roundChanged: boolean;
  runChanged: boolean;
}

function setRun(c: Context, patch: Partial<RunSummaryRow>): void {
  if (c.d.run === null) return;
  c.d.run = { ...c.d.run, ...patch };
  c.runChanged = true;
}

function setHistory(c: Context, patch: Partial<RoundHistoryRow>): void {
  if (c.d.history === null) return;
  c.d.history = { ...c.d.history, ...patch };
  c.roundChanged = true;
}

function fire(c: Context, round: number, firings: readonly Firing[]): void {
  const d = c.d;
  if (d.run_id === null) return;
  for (const f of firings) {
    const eventId = deterministicId(d.plan, d.run_id, 'loop_detected', f.heuristic, round);
    if (d.fired.includes(eventId) || c.detections.some((x) => x.event_id === eventId)) continue;
    const fingerprints = [...new Set(f.trackers.map((t) => t.key.slice(0, 12)))].filter((fp) =>
      /^[0-9a-f]{12}$/.test(fp),
    );
    c.detections.push({
      event_id: eventId,
      plan: d.plan,
      run_id: d.run_id,
      heuristic: f.heuristic,
      round,
      fingerprints,
      critic_ids: [...new Set(f.trackers.map((t) => t.critic_id))],
      message: f.message.slice(0, 4000),
      evidence: f.evidence,
      causation_id: c.event.event_id,
      occurred_at: c.event.occurred_at,
    });
    d.fired = [...d.fired, eventId].slice(-MAX_FIRED);
    if (d.run !== null)
      setRun(c, { detections: [...d.run.detections, { heuristic: f.heuristic, round }].slice(-MAX_RUN_LIST) });
    if (d.history !== null && d.history.round === round)
      setHistory(c, { detections: [...d.history.detections, f.heuristic].slice(-MAX_HISTORY_DETECTIONS) });
    for (const t of f.trackers) {
      c.learnings.push({
        critic_id: t.critic_id,
        finding_type: t.finding_type,
        new_loop: false,
        rounds_seen: 0,
        fixed: 0,
        stuck: 1,
        title: t.title,
        plan: d.plan,
        at: c.event.occurred_at,
      });
    }
  }
}

function onRoundStarted(c: Context, event: Extract<JournaledEvent, { type: 'RoundStarted' }>): void {
  const d = c.d;
  const data = event.data;
  if (data.round <= d.round || d.run_id === null) return;
  if (data.phase !== d.phase) {
    d.trend = { phase: data.phase, points: [] };
    d.phase = data.phase;
  }
  d.round = data.round;
  const critics: Record<string, string> = {};
  for (const critic of data.critics) critics[critic.critic_id] = 'pending';
  d.current = {
    round: data.round,
    phase: data.phase,
    phase_round: data.phase_round,
    mode: data.mode,
    critics,
    reports: {},
    letter_map: {},
    letter_written: false,
    fixed: false,
  };
  const retained = data.retained_best ?? null;
  if (retained !== null) {
    // The work after the best round was thrown away: what vanished with it did not "go away", and
    // its comeback on the best commit is no oscillation.
    for (const t of d.trackers) {
      if (t.absent_since !== null && t.absent_since > retained.best_round) {
        t.absent_since = null;
        t.last_state = 'h';
        restartStreak(t, data.round);
      }
    }
    d.edges = d.edges.filter((e) => e.round <= retained.best_round);
    d.previous_max = null;
  }
  d.history = {
    run_id: d.run_id,
    round: data.round,
    phase: data.phase,
    phase_round: data.phase_round,
    started_at: event.occurred_at,
    commit: data.commit,
    critics,
    letter_id: null,
    findings: null,
    counts: null,
    complete: null,
    top_score_avg: null,
    max_score: null,
    key_moment: null,
    retained_best:
      retained === null
        ? null
        : {
            best_round: retained.best_round,
            best_commit: retained.best_commit,
            worse_round: retained.worse_round,
            worse_commit: retained.worse_commit,
          },
    fix: null,
    detections: [],
  };
  c.roundChanged = true;
  if (d.run !== null) {
    setRun(c, {
      rounds: data.round,
      phase_rounds: {
        ...d.run.phase_rounds,
        [data.phase]: Math.max(d.run.phase_rounds[data.phase] ?? 0, data.phase_round),
      },
    });
  }
}

function onReport(c: Context, round: number, criticId: string, outcome: string, findings: readonly Finding[]): void {
  const current = c.d.current;
  if (current === null || current.round !== round || current.letter_written) return;
  // First word wins, as in the loop state: a duplicate or a late second answer changes nothing.
  if (current.critics[criticId] !== undefined && current.critics[criticId] !== 'pending') return;
  current.critics[criticId] = outcome;
  if (outcome === 'reported') current.reports[criticId] = findings.map(refOf);
  setHistory(c, { critics: { ...current.critics } });
}

/** The draft's own trackers a firing names (the heuristics read them; the fold changes them). */
function trackersOf(d: Draft, firing: Firing): Mutable<Tracker>[] {
  return d.trackers.filter((t) => firing.trackers.includes(t));
}

function observeLetter(c: Context, letter: Letter): void {
  const d = c.d;
  const current = d.current;
  const config = c.config;
  if (current === null || current.round !== letter.round || current.letter_written) return;
  current.letter_written = true;
  const round = current.round;
  const letterMax = letter.findings.reduce((max, f) => Math.max(max, f.score), 0);
  // Only a complete letter says something about severity (a silent critic is not a breakthrough).
  const keyMoment = letter.complete ? keyMomentOf(d.previous_max, letterMax, config.key_moments.max_drop) : null;
  if (letter.complete) d.previous_max = letterMax;

  // Every critic that reported speaks for its findings; a critic that failed says nothing (infra failures are never findings or absences).
  const reporting = new Set(
    Object.entries(current.critics)
      .filter(([, outcome]) => outcome === 'reported')
      .map(([id]) => id),
  );
  for (const id of Object.keys(current.reports)) reporting.add(id);
  const refs: FindingRef[] = Object.entries(current.reports).flatMap(([, list]) => list);
  const known = new Set(refs.map((r) => `${r.raised_by}\u0000${r.fingerprint}`));
  for (const f of letter.findings) {
    if (!known.has(`${f.raised_by}\u0000${f.fingerprint}`)) {
      refs.push(refOf(f));
      reporting.add(f.raised_by);
    }
  }
  const inLetter = new Set(letter.findings.map((f) => `${f.raised_by}\u0000${f.fingerprint}`));
  const related = new Set(letter.findings.flatMap((f) => f.related_findings));
  const matches = matchReports(d, refs, round, config);
  const matched = new Set(matches.map((m) => m.tracker.key));

  const reappeared: Mutable<Tracker>[] = [];
  const gone: Mutable<Tracker>[] = [];
  const created: Mutable<Tracker>[] = [];
  let run = d.run;
  for (const m of matches) {
    const t = m.tracker;
    const state: PresenceState =
      inLetter.has(`${m.ref.raised_by}\u0000${m.ref.fingerprint}`) || related.has(m.ref.id) ? 'p' : 'h';
    if (m.created) created.push(t);
    if (m.drift !== null && m.drift > 0 && run !== null) run = { ...run, line_drift: bump(run.line_drift, m.drift) };
    if (!t.fingerprints.includes(m.ref.fingerprint))
      t.fingerprints = [...t.fingerprints, m.ref.fingerprint].slice(-MAX_FINGERPRINTS);
    t.line_range = { ...m.ref.line_range };
    t.location_hash = m.ref.location_hash ?? t.location_hash;
    t.title = m.ref.title;
    t.severity = m.ref.severity;
    t.category = m.ref.category;
    t.score = m.ref.score;
    t.expected = m.ref.expected;
    if (t.absent_since !== null) {
      t.reappearances += 1;
      t.total_reappearances += 1;
      t.absent_since = null;
      restartStreak(t, round);
      reappeared.push(t);
      if (run !== null) run = { ...run, reappearances: bump(run.reappearances, t.total_reappearances) };
    }
    if (state === 'p') {
      if (t.streak === 0) t.streak_start = round;
      t.streak += 1;
    }
    t.last_state = state;
    t.last_seen = round;
    addSegment(t, round, state, config.limits.max_segments_per_finding);
  }
  for (const t of d.trackers) {
    if (matched.has(t.key) || !reporting.has(t.critic_id)) continue;
    if (t.absent_since === null && t.last_state !== 'a') {
      if (run !== null)
        run = {
          ...run,
          fixed_after_rounds: bump(run.fixed_after_rounds, t.streak),
          attempts_to_fix: bump(run.attempts_to_fix, t.streak_attempts),
        };
      if (t.attempts.length > 0) {
        c.learnings.push({
          critic_id: t.critic_id,
          finding_type: t.finding_type,
          new_loop: false,
          rounds_seen: 0,
          fixed: 1,
          stuck: 0,
          title: t.title,
          plan: d.plan,
          at: c.event.occurred_at,
        });
      }
      t.absent_since = round;
      gone.push(t);
    }
    addSegment(t, round, 'a', config.limits.max_segments_per_finding);
    t.last_state = 'a';
    restartStreak(t, round);
  }
  // A finding gone for longer than the oscillation look-back can no longer oscillate or stall
  // anything: forgetting it keeps each update as cheap at round 500 as at round 5 (a finding that
  // comes back after that is a new issue).
  d.trackers = d.trackers.filter(
    (t) => t.absent_since === null || round - t.absent_since <= config.oscillation.cycle_lookback_rounds,
  );
  if (run !== null && run !== d.run) setRun(c, run);

  // Learnings: every pattern present this round, and the first sighting per run.
  const seen = new Map<string, Mutable<Tracker>>();
  // Stored in the memory, which PostgreSQL keeps as jsonb: no NUL separators there.
  for (const m of matches) seen.set(`${m.tracker.critic_id} ${m.tracker.finding_type}`, m.tracker);
  for (const [key, t] of seen) {
    const first = !d.learned.includes(key);
    // Bounded like the trackers: only the most recent patterns of the run are remembered as seen.
    if (first) d.learned = [...d.learned, key].slice(-config.limits.max_tracked_findings);
    c.learnings.push({
      critic_id: t.critic_id,
      finding_type: t.finding_type,
      new_loop: first,
      rounds_seen: 1,
      fixed: 0,
      stuck: 0,
      title: t.title,
      plan: d.plan,
      at: c.event.occurred_at,
    });
  }

  // Letter finding ids → trackers, so the fix's `fixed_findings` land on the right issues.
  const byRef = new Map(matches.map((m) => [`${m.ref.raised_by}\u0000${m.ref.fingerprint}`, m.tracker.key]));
  const byId = new Map(matches.map((m) => [m.ref.id, m.tracker.key]));
  current.letter_map = {};
  for (const f of letter.findings) {
    const key = byRef.get(`${f.raised_by}\u0000${f.fingerprint}`);
    if (key !== undefined) current.letter_map[f.id] = key;
    for (const id of f.related_findings) {
      const relatedKey = byId.get(id);
      if (relatedKey !== undefined) current.letter_map[id] = relatedKey;
    }
  }
  current.reports = {};

  // Trend point (review-loop seed) over everything the critics reported for the phase.
  let topAvg: number | null = null;
  if (letter.complete) {
    const phaseMatches = matches.filter((m) => phaseIncludes(current.phase, m.ref.severity));
    topAvg =
      Math.round(
        topScoreAverage(
          phaseMatches.map((m) => m.ref.score),
          config.flat_trend.top,
        ) * 1000,
      ) / 1000;
    const point: TrendPoint = {
      round,
      top: topAvg,
      count: phaseMatches.length,
      keys: phaseMatches.map((m) => m.tracker.key).slice(0, 100),
    };
    const points = d.trend.phase === current.phase ? [...d.trend.points, point] : [point];
    d.trend = { phase: current.phase, points: points.slice(-Math.max(config.flat_trend.rounds, 2)) };
  }
  setHistory(c, {
    letter_id: letter.letter_id,
    findings: letter.findings.length,
    counts: { ...letter.counts },
    complete: letter.complete,
    top_score_avg: topAvg,
    max_score: letterMax,
    key_moment: keyMoment,
    critics: { ...current.critics },
  });

  // Cycles across findings: "X went away and Y came" now, after "Y went away and X came" before.
  const arrivals = [...created, ...reappeared];
  const cycles: [Mutable<Tracker>, Mutable<Tracker>][] = [];
  if (gone.length * arrivals.length <= MAX_EDGE_PAIRS) {
    const lookback = round - config.oscillation.cycle_lookback_rounds;
    let edges = d.edges.filter((e) => e.round >= lookback);
    for (const g of gone) {
      for (const a of arrivals) {
        const reverse = edges.find((e) => e.from === a.key && e.to === g.key);
        if (reverse !== undefined) {
          cycles.push([a, g]);
          edges = edges.filter((e) => e !== reverse);
        } else {
          edges.push({ round, from: g.key, to: a.key });
        }
      }
    }
    d.edges = edges.slice(-MAX_EDGES);
  }
  if (current.mode !== 'loop' || d.verdict !== 'run') return;

  // The heuristics of a letter, in the order they are reported; each one's file says when it fires.
  const firings: Firing[] = [];
  // The letter's disagreements (the synthesizer's) escalate when the letter before had them too.
  const repeated = repeatedDisagreements(letter, current.letter_map, d.disagreements ?? []);
  d.disagreements = [...repeated.keys];
  const conflicts = repeated.pairs.map(([a, b]) => [refOf(a), refOf(b)] as const);
  const disagreement = criticDisagreement(
    {
      repeated: conflicts,
      cycles,
      trackers: d.trackers,
      keyOf: (r) => byRef.get(`${r.raised_by}\u0000${r.fingerprint}`),
      round,
    },
    config,
  );
  if (disagreement !== null) firings.push(disagreement);
  const wall = implementerWall(d.trackers, config);
  if (wall !== null) {
    firings.push(wall);
    for (const t of trackersOf(d, wall)) restartStreak(t, round + 1);
  }
  const oscillating = oscillation({ reappeared, cycles, round }, config);
  if (oscillating !== null) {
    firings.push(oscillating);
    // Comebacks are counted again from here (cycles are reported once: their edge is gone).
    const back = oscillations(reappeared, config);
    for (const t of trackersOf(d, oscillating)) if (back.includes(t)) t.reappearances = 0;
  }
  const persistent = persistentIssue(d.trackers, config, wall?.trackers ?? []);
  if (persistent !== null) {
    firings.push(persistent);
    for (const t of trackersOf(d, persistent)) restartStreak(t, round + 1);
  }
  const flat = flatTrendFiring(
    { points: d.trend.points, phase: current.phase, round, complete: letter.complete },
    config,
  );
  if (flat !== null) {
    firings.push(flat);
    d.trend = { phase: d.trend.phase, points: [] };
  }
  fire(c, round, firings);
}

function fixSignature(
  files: readonly { file: string; lines_changed: number; hunks: readonly { start: number; end: number }[] }[],
): string {
  return files
    .map(
      (f) =>
        `${f.file}:${f.hunks.length > 0 ? f.hunks.map((h) => `${h.start}-${h.end}`).join(',') : `~${f.lines_changed}`}`,
    )
    .sort()
    .join(';');
}

function observeFix(c: Context, event: Extract<JournaledEvent, { type: 'FixApplied' }>): void {
  const d = c.d;
  const current = d.current;
  const data = event.data;
  if (current === null || current.round !== data.round || current.fixed) return;
  current.fixed = true;
  const infra = isInfraFailure(data);
  const lines = data.fixes_applied.reduce((sum, f) => sum + f.lines_changed, 0);
  setHistory(c, { fix: { outcome: data.outcome, commit: data.commit, lines_changed: lines, infra_failure: infra } });
  if (infra) return;

  // Fix attempts: the files whose changes touched each letter finding's lines.
  const perTracker = new Map<string, (typeof data.fixes_applied)[number][]>();
  for (const file of data.fixes_applied) {
    for (const id of file.fixed_findings) {
      const key = current.letter_map[id];
      if (key === undefined) continue;
      const list = perTracker.get(key) ?? [];
      if (!list.includes(file)) list.push(file);
      perTracker.set(key, list);
    }
  }
  for (const t of d.trackers) {
    const files = perTracker.get(t.key);
    if (files === undefined) continue;
    const signature = fixSignature(files);
    t.attempts = [
      ...t.attempts,
      {
        round: data.round,
        commit: data.commit,
        outcome: data.outcome,
        lines_changed: files.reduce((s, f) => s + f.lines_changed, 0),
        signature,
        position: c.position,
      },
    ].slice(-c.config.limits.max_attempts_per_finding);
    if (!t.signatures.includes(signature)) {
      t.signatures = [...t.signatures, signature].slice(-MAX_SIGNATURES);
      t.streak_attempts += 1;
    }
  }

  // Stall (FSM seed): the code did not move.
  d.stall = countStall(d.stall, data);
  const stalled = current.mode === 'loop' ? stall(d.stall, data, c.config) : null;
  if (stalled !== null) {
    fire(c, data.round, [stalled]);
    d.stall = NO_STALL;
  }
}

function newRun(plan: string, event: Extract<JournaledEvent, { type: 'PlanSubmitted' }>): RunSummaryRow {
  return {
    run_id: event.event_id,
    plan,
    started_at: event.occurred_at,
    ended_at: null,
    status: 'running',
    rounds: 0,
    phases_cleared: {},
    phase_rounds: {},
    detections: [],
    escalations: [],
    resumes: 0,
    fixed_after_rounds: {},
    attempts_to_fix: {},
    reappearances: {},
    line_drift: {},
  };
}

function end(c: Context, status: string): void {
  c.d.ended = true;
  setRun(c, { status, ended_at: c.event.occurred_at });
}

/**
 * Folds one committed event into the plan's loop memory and runs the loop-detection heuristics
 * incrementally (each step looks at the trackers and the round at hand, never at the whole
 * history). Returns the new memory and what changed: detections to journal as LoopDetected, the
 * round-history row, the run summary and learnings deltas. Pure: replays give the same output.
 */
export function evolveMemory(
  memory: LoopMemory,
  event: JournaledEvent,
  position: number,
  config: LoopConfig,
): MemoryStep {
  const inRun = event.type === 'PlanSubmitted' || (memory.run_id !== null && event.correlation_id === memory.run_id);
  if (!inRun)
    return {
      memory: { ...memory, version: Math.max(memory.version, position) },
      detections: [],
      round: null,
      run: null,
      learnings: [],
    };
  if (event.type === 'PlanSubmitted') {
    if (memory.run_id !== null && !memory.ended)
      return {
        memory: { ...memory, version: Math.max(memory.version, position) },
        detections: [],
        round: null,
        run: null,
        learnings: [],
      };
    const fresh: LoopMemory = {
      ...initialLoopMemory(memory.plan),
      run_id: event.event_id,
      run: newRun(memory.plan, event),
      version: position,
    };
    return { memory: fresh, detections: [], round: null, run: fresh.run, learnings: [] };
  }
  const c: Context = {
    d: draftOf(memory, TRACKER_EVENTS.has(event.type)),
    event,
    position,
    config,
    detections: [],
    learnings: [],
    roundChanged: false,
    runChanged: false,
  };
  const d = c.d;
  d.version = Math.max(d.version, position);
  switch (event.type) {
    case 'LoopGated':
      d.verdict = event.data.verdict;
      break;
    case 'RoundStarted':
      onRoundStarted(c, event);
      break;
    case 'FindingsReported':
      onReport(c, event.data.round, event.data.critic_id, 'reported', event.data.findings);
      break;
    case 'CriticFailed':
      onReport(c, event.data.round, event.data.critic_id, event.data.reason, []);
      break;
    case 'LetterWritten':
      observeLetter(c, event.data.letter);
      break;
    case 'FixApplied':
      observeFix(c, event);
      break;
    case 'LoopDetected':
      if (!d.fired.includes(event.event_id) && d.run !== null) {
        d.fired = [...d.fired, event.event_id].slice(-MAX_FIRED);
        setRun(c, {
          detections: [...d.run.detections, { heuristic: event.data.heuristic, round: event.data.round }].slice(
            -MAX_RUN_LIST,
          ),
        });
      }
      break;
    case 'EscalationRaised':
      if (d.run !== null) {
        setRun(c, {
          status: 'escalated',
          escalations: [
            ...d.run.escalations,
            {
              reason: event.data.reason,
              heuristic: event.data.report.trigger.heuristic ?? null,
              round: event.data.round,
            },
          ].slice(-MAX_RUN_LIST),
        });
      }
      break;
    case 'LoopResumed':
      if (d.run !== null) setRun(c, { status: 'running', resumes: d.run.resumes + 1 });
      d.stall = NO_STALL;
      break;
    case 'PhaseAdvanced':
      if (
        d.run !== null &&
        event.data.reason === 'phase_clear' &&
        d.run.phases_cleared[event.data.from] === undefined
      ) {
        setRun(c, {
          phases_cleared: { ...d.run.phases_cleared, [event.data.from]: d.run.phase_rounds[event.data.from] ?? 1 },
        });
      }
      d.trend = { phase: event.data.to, points: [] };
      d.previous_max = null;
      break;
    case 'LoopConverged':
      if (d.run !== null && d.run.phases_cleared.final_sweep === undefined)
        setRun(c, { phases_cleared: { ...d.run.phases_cleared, final_sweep: d.run.phase_rounds.final_sweep ?? 1 } });
      end(c, 'converged');
      break;
    case 'LoopBypassed':
      end(c, 'bypassed');
      break;
    case 'LoopStopped':
      end(c, 'stopped');
      break;
    case 'PlanRejected':
      end(c, 'rejected');
      break;
    // Queueing and where the branch is left change nothing the heuristics track.
    case 'LoopQueued':
    case 'BaselineRecorded':
    case 'FixRequested':
    case 'TestsWritten':
    case 'UsageRecorded':
    case 'BranchHandedOff':
      break;
  }
  const next = d as unknown as LoopMemory;
  return {
    memory: next,
    detections: c.detections,
    round: c.roundChanged ? next.history : null,
    run: c.runChanged ? next.run : null,
    learnings: c.learnings,
  };
}
