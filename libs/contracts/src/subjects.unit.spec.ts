import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ValidationError } from './errors.js';
import { CHANNELS, EVENT_CATALOGUE, EVENT_TYPES } from './events.js';
import { CriticId, Slug } from './primitives.js';
import {
  CRITIC_BOUND_EVENTS,
  DEFAULT_NAMESPACE,
  SUBJECT_VERSION,
  isCriticBound,
  streamOf,
  subjectToken,
  subjectsFor,
} from './subjects.js';

const slugs = fc.stringMatching(/^[a-z0-9]+(?:-[a-z0-9]+)*$/).filter((s) => Slug.safeParse(s).success);
const criticIds = fc
  .stringMatching(/^[a-z0-9][a-z0-9-]*(?:\/[a-z0-9][a-z0-9-]*)*$/)
  .filter((s) => CriticId.safeParse(s).success);
const namespaces = fc.stringMatching(/^[a-z][a-z0-9_-]{0,31}$/);

describe('subjectsFor', () => {
  it('uses the rloop namespace and the v1 subject version by default', () => {
    const subjects = subjectsFor();
    expect(subjects.namespace).toBe(DEFAULT_NAMESPACE);
    expect(DEFAULT_NAMESPACE).toBe('rloop');
    expect(SUBJECT_VERSION).toBe('v1');
    expect(subjects.event('RoundStarted', 'add-billing')).toBe('rloop.v1.events.round_started.add-billing');
    expect(subjects.planSubmit).toBe('rloop.v1.plans.submit');
    expect(subjects.streams).toEqual({
      events: 'RLOOP_EVENTS',
      commits: 'RLOOP_COMMITS',
      critics: 'RLOOP_CRITICS',
      deadLetters: 'RLOOP_DEAD_LETTERS',
    });
    expect(subjects.criticsBucket).toBe('RLOOP_CRITIC_HEALTH');
  });

  it.each(EVENT_TYPES.filter((type) => !isCriticBound(type)))(
    'routes %s to <ns>.v1.<channel>.<token>.<plan> and to its channel’s stream',
    (type) => {
      const subjects = subjectsFor('team-a');
      const { channel, token } = EVENT_CATALOGUE[type];
      expect(subjects.event(type, 'add-billing')).toBe(`team-a.v1.${channel}.${token}.add-billing`);
      expect(subjects.eventFilter(type)).toBe(`team-a.v1.${channel}.${token}.*`);
      expect(streamOf(subjects, type)).toBe(subjects.streams[channel]);
    },
  );

  it.each(CRITIC_BOUND_EVENTS)(
    'routes %s to <ns>.v1.events.<token>.<plan>.<critic>, so a permission can bind a critic to its own answers',
    (type) => {
      const subjects = subjectsFor('team-a');
      const { token } = EVENT_CATALOGUE[type];
      expect(subjects.event(type, 'add-billing', 'security/sast-scanner')).toBe(
        `team-a.v1.events.${token}.add-billing.security_sast-scanner`,
      );
      expect(subjects.eventFilter(type)).toBe(`team-a.v1.events.${token}.*.*`);
      expect(subjects.eventFilter(type, 'security/sast-scanner')).toBe(
        `team-a.v1.events.${token}.*.security_sast-scanner`,
      );
      expect(() => subjects.event(type, 'add-billing')).toThrow(
        expect.objectContaining({ code: 'CONTRACT.SUBJECT_NEEDS_CRITIC' }),
      );
      expect(streamOf(subjects, type)).toBe('TEAM-A_EVENTS');
    },
  );

  it('keeps critic registry traffic and journal announcements off the journaled channel', () => {
    const subjects = subjectsFor();
    expect(subjects.event('CriticRegistered', 'security/sast-scanner')).toBe(
      'rloop.v1.critics.critic_registered.security_sast-scanner',
    );
    expect(subjects.event('CriticHeartbeat', '_critics')).toBe('rloop.v1.critics.critic_heartbeat._critics');
    expect(subjects.event('JournalCommitted', 'add-billing')).toBe('rloop.v1.commits.journal_committed.add-billing');
    expect(streamOf(subjects, 'CriticHeartbeat')).toBe('RLOOP_CRITICS');
    expect(streamOf(subjects, 'JournalCommitted')).toBe('RLOOP_COMMITS');
    const journaled = EVENT_TYPES.filter((type) => EVENT_CATALOGUE[type].channel === 'events');
    expect(journaled).toContain('PlanSubmitted');
    expect(journaled).not.toContain('CriticRegistered');
    expect(journaled).not.toContain('JournalCommitted');
  });

  it('filters whole channels, journal queries and dead letters under the namespace', () => {
    const subjects = subjectsFor('team-a');
    expect(CHANNELS.map((channel) => subjects.channelFilter(channel))).toEqual([
      'team-a.v1.events.>',
      'team-a.v1.commits.>',
      'team-a.v1.critics.>',
    ]);
    expect(subjects.journalQuery('stream')).toBe('team-a.v1.journal.stream');
    expect(subjects.deadLetter('panel.on-commit')).toBe('team-a.v1.dead_letters.panel_on-commit');
    expect(subjects.deadLetterFilter).toBe('team-a.v1.dead_letters.>');
    expect(subjects.streams.events).toBe('TEAM-A_EVENTS');
  });

  it('gives every token and subject a distinct value per event type', () => {
    const subjects = subjectsFor();
    const tokens = EVENT_TYPES.map((type) => EVENT_CATALOGUE[type].token);
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const token of tokens) expect(token).toMatch(/^[a-z]+(?:_[a-z]+)*$/);
    const filters = EVENT_TYPES.map((type) => subjects.eventFilter(type));
    expect(new Set(filters).size).toBe(filters.length);
  });

  it.each(['', 'Rloop', '1abc', '_x', 'a.b', 'a*', 'a>', 'a b', 'a/b', `a${'b'.repeat(32)}`])(
    'rejects the namespace %j with a typed error',
    (namespace) => {
      let thrown: unknown;
      try {
        subjectsFor(namespace);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ValidationError);
      expect(thrown).toMatchObject({
        code: 'CONTRACT.INVALID_NAMESPACE',
        retryable: false,
        issues: [{ path: 'namespace' }],
      });
    },
  );

  it('accepts namespaces up to 32 characters', () => {
    expect(subjectsFor(`a${'b'.repeat(31)}`).namespace).toHaveLength(32);
  });

  it('gives distinct namespaces distinct streams and buckets', () => {
    fc.assert(
      fc.property(namespaces, namespaces, (a, b) => {
        fc.pre(a !== b);
        const [x, y] = [subjectsFor(a), subjectsFor(b)];
        for (const stream of ['events', 'commits', 'critics', 'deadLetters'] as const)
          expect(x.streams[stream]).not.toBe(y.streams[stream]);
        expect(x.criticsBucket).not.toBe(y.criticsBucket);
      }),
      { numRuns: 200 },
    );
    expect(subjectsFor('my-ns').streams.events).not.toBe(subjectsFor('my_ns').streams.events);
  });
});

describe('subjectToken', () => {
  it('replaces the characters a NATS token cannot hold', () => {
    expect(subjectToken('security/sast-scanner')).toBe('security_sast-scanner');
    expect(subjectToken('a.b')).toBe('a_b');
    expect(subjectToken('*')).toBe('_');
    expect(subjectToken('>')).toBe('_');
    expect(subjectToken('a b\tc')).toBe('a_b_c');
    expect(subjectToken('Plan_Key-1')).toBe('Plan_Key-1');
  });

  it('always yields a single wildcard-free token and is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const token = subjectToken(value);
        expect(token).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(subjectToken(token)).toBe(token);
      }),
      { numRuns: 200 },
    );
  });

  it('leaves slugs and reserved plan keys unchanged, so plan subjects read like the plan', () => {
    fc.assert(
      fc.property(slugs, (slug) => expect(subjectToken(slug)).toBe(slug)),
      { numRuns: 100 },
    );
    expect(subjectToken('_invalid')).toBe('_invalid');
    expect(subjectToken('_critics')).toBe('_critics');
  });

  it('never maps two critic ids to one subject', () => {
    fc.assert(
      fc.property(criticIds, criticIds, (a, b) => {
        fc.pre(a !== b);
        expect(subjectToken(a)).not.toBe(subjectToken(b));
      }),
      { numRuns: 200 },
    );
  });
});
