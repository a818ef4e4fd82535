import { describe, expect, it } from '@jest/globals';
import { ValidationError, subjectsFor } from '@rloop/contracts';
import { criticHeartbeat, findingsReported, loopStopped } from './__fixtures__/events.js';
import { decodeEventMessage, decodeJsonBody, payloadForRecord } from './codec.js';
import { consumerTarget, durableName, orderingKeyOf, requestSubject, subjectOf } from './routing.js';

const subjects = subjectsFor('rloop');
function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof ValidationError ? error.code : 'not a ValidationError';
  }
}

const bytes = (value: unknown): Uint8Array =>
  new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));

describe('decodeEventMessage', () => {
  it('accepts a valid event on its own subject', () => {
    const event = loopStopped('plan-a');
    expect(decodeEventMessage(subjects, 'rloop.v1.events.loop_stopped.plan-a', bytes(event))).toEqual({
      ok: true,
      event,
    });
  });

  it('says why a payload is not an event', () => {
    const subject = 'rloop.v1.events.loop_stopped.plan-a';
    expect(decodeEventMessage(subjects, subject, new Uint8Array([0xff]))).toMatchObject({
      ok: false,
      code: 'BUS.NOT_UTF8',
    });
    expect(decodeEventMessage(subjects, subject, bytes('{'))).toMatchObject({ ok: false, code: 'BUS.NOT_JSON' });
    expect(decodeEventMessage(subjects, subject, bytes({ type: 'Nope' }))).toMatchObject({
      ok: false,
      code: 'CONTRACT.UNKNOWN_TYPE',
    });
    expect(decodeEventMessage(subjects, subject, bytes({ ...loopStopped('plan-a'), data: {} }))).toMatchObject({
      ok: false,
      code: 'CONTRACT.INVALID',
      issues: [{ path: 'data.by', message: expect.any(String) as unknown }],
    });
  });

  it('refuses an event published on another type or plan subject', () => {
    expect(
      decodeEventMessage(subjects, 'rloop.v1.events.loop_gated.plan-a', bytes(loopStopped('plan-a'))),
    ).toMatchObject({ ok: false, code: 'BUS.SUBJECT_MISMATCH' });
    expect(
      decodeEventMessage(subjects, 'rloop.v1.events.loop_stopped.plan-b', bytes(loopStopped('plan-a'))),
    ).toMatchObject({ ok: false, code: 'BUS.SUBJECT_MISMATCH' });
  });

  it('refuses a report whose critic is not the one in its subject (a critic may only answer for itself)', () => {
    const report = findingsReported('plan-a', 'examples/no-console-log');
    expect(
      decodeEventMessage(subjects, 'rloop.v1.events.findings_reported.plan-a.examples_no-console-log', bytes(report)),
    ).toEqual({ ok: true, event: report });
    const forged = { ...report, data: { ...report.data, critic_id: 'security/sast-scanner' } };
    expect(
      decodeEventMessage(subjects, 'rloop.v1.events.findings_reported.plan-a.examples_no-console-log', bytes(forged)),
    ).toMatchObject({
      ok: false,
      code: 'BUS.SUBJECT_MISMATCH',
      message: expect.stringContaining('rloop.v1.events.findings_reported.plan-a.security_sast-scanner'),
    });
    // The subject layout before critics were named in it is refused too: nothing vouches for the critic.
    expect(decodeEventMessage(subjects, 'rloop.v1.events.findings_reported.plan-a', bytes(report))).toMatchObject({
      ok: false,
      code: 'BUS.SUBJECT_MISMATCH',
    });
  });
});

describe('payloadForRecord and decodeJsonBody', () => {
  it('keeps UTF-8 as text and anything else as base64', () => {
    expect(payloadForRecord(bytes('héllo'))).toEqual({ payload: 'héllo', payload_encoding: 'utf8' });
    expect(payloadForRecord(new Uint8Array([0xc3, 0x28]))).toEqual({ payload: 'wyg=', payload_encoding: 'base64' });
  });

  it('bounds, decodes and parses a request body', () => {
    expect(decodeJsonBody(bytes({ a: 1 }), 100)).toEqual({ a: 1 });
    expect(codeOf(() => decodeJsonBody(bytes('x'.repeat(101)), 100))).toBe('BUS.BODY_TOO_LARGE');
    expect(codeOf(() => decodeJsonBody(new Uint8Array([0xc3, 0x28]), 100))).toBe('BUS.NOT_UTF8');
    expect(codeOf(() => decodeJsonBody(bytes('{'), 100))).toBe('BUS.NOT_JSON');
  });
});

describe('routing', () => {
  it('puts plan events under their plan and critic traffic under the critic', () => {
    expect(subjectOf(subjects, loopStopped('plan-a'))).toBe('rloop.v1.events.loop_stopped.plan-a');
    expect(subjectOf(subjects, criticHeartbeat('security/sast-scanner'))).toBe(
      'rloop.v1.critics.critic_heartbeat.security_sast-scanner',
    );
    expect(orderingKeyOf('rloop.v1.events.loop_stopped.plan-a')).toBe('plan-a');
  });

  it('puts a critic’s answer under its plan and then its critic, and orders it with the plan', () => {
    expect(subjectOf(subjects, findingsReported('plan-a', 'security/sast-scanner'))).toBe(
      'rloop.v1.events.findings_reported.plan-a.security_sast-scanner',
    );
    expect(orderingKeyOf('rloop.v1.events.findings_reported.plan-a.security_sast-scanner')).toBe('plan-a');
    expect(orderingKeyOf('rloop.v1.critics.critic_heartbeat.security_sast-scanner')).toBe('security_sast-scanner');
    expect(orderingKeyOf('rloop.v1.dead_letters.panel-decide')).toBe('panel-decide');
    expect(consumerTarget(subjects, 'FindingsReported')).toEqual({
      stream: 'RLOOP_EVENTS',
      filter: 'rloop.v1.events.findings_reported.*.*',
    });
  });

  it('maps selectors to one stream and one filter subject', () => {
    expect(consumerTarget(subjects, 'RoundStarted')).toEqual({
      stream: 'RLOOP_EVENTS',
      filter: 'rloop.v1.events.round_started.*',
    });
    expect(consumerTarget(subjects, 'channel:events')).toEqual({ stream: 'RLOOP_EVENTS', filter: 'rloop.v1.events.>' });
    expect(consumerTarget(subjects, 'JournalCommitted')).toEqual({
      stream: 'RLOOP_COMMITS',
      filter: 'rloop.v1.commits.journal_committed.*',
    });
  });

  it('maps request operations to their subjects', () => {
    expect(requestSubject(subjects, 'plans.submit')).toBe('rloop.v1.plans.submit');
    expect(requestSubject(subjects, 'journal.status')).toBe('rloop.v1.journal.status');
  });

  it('sanitises durable names: no dots, wildcards, slashes or spaces', () => {
    expect(durableName('panel', 'Panel Handlers.on>Round*/x')).toBe('panel-Panel_Handlers_on_Round__x');
  });
});
