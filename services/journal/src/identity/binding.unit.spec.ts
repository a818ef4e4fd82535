import { describe, expect, it } from '@jest/globals';
import { type BindingInput, decideBinding } from './binding.js';

const NOW = Date.parse('2026-12-01T12:00:00.000Z');
const self = { journalId: '01JSELF', store: 'embedded journal at /home/p/.rloop/journal', hasHistory: false };
const other = {
  journal_id: '01JOTHER',
  store: 'embedded journal at /old/.rloop/journal',
  claimed_at: '2026-11-01T09:00:00.000Z',
  heartbeat_at: '2026-11-30T18:00:00.000Z',
};

function given(overrides: Partial<BindingInput>): ReturnType<typeof decideBinding> {
  return decideBinding({
    namespace: 'rloop',
    self,
    claim: null,
    busEvents: 0,
    nowMs: NOW,
    liveWithinMs: 90_000,
    ...overrides,
  });
}

describe('a journal binds itself to its namespace at start', () => {
  it('given a fresh namespace, when an empty journal starts, then it binds it quietly', () => {
    expect(given({})).toEqual({
      action: 'bind',
      lines: ['journal: 01JSELF (embedded journal at /home/p/.rloop/journal) is now the journal of namespace rloop.'],
    });
  });

  it('given events on the bus and no journal bound, when an empty journal starts, then it says it will not journal runs it never saw and how to keep them', () => {
    const binding = given({ busEvents: 1234 });
    expect(binding.action).toBe('bind');
    expect(binding.lines.join('\n')).toMatch(
      /carries 1234 event\(s\) on the bus from before this journal.*not journaled here.*orphans/,
    );
    expect(binding.lines.join('\n')).toMatch(/start it on the database that recorded it/);
  });

  it('given the namespace bound to this journal, when it restarts, then it keeps it', () => {
    expect(given({ self: { ...self, hasHistory: true }, claim: { ...other, journal_id: '01JSELF' } }).action).toBe(
      'bind',
    );
  });

  it("given the namespace of a journal that stopped, when an empty journal starts, then it takes it over naming the old journal's store to go back to", () => {
    const binding = given({ claim: other });
    expect(binding.action).toBe('bind');
    expect(binding.lines.join('\n')).toContain('belonged to journal 01JOTHER (embedded journal at /old/.rloop/journal');
    expect(binding.lines.join('\n')).toContain('start it on embedded journal at /old/.rloop/journal');
  });

  it('given the namespace of a journal that is running, when another journal starts, then it refuses, saying why and what to do', () => {
    const binding = given({ claim: { ...other, heartbeat_at: new Date(NOW - 20_000).toISOString() } });
    expect(binding.action).toBe('refuse');
    expect(binding.lines.join('\n')).toMatch(/which is running \(seen 20 s ago\).*split its events/);
    expect(binding.lines.join('\n')).toMatch(/RLOOP_NAMESPACE/);
  });
});
