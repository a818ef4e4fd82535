import { describe, expect, it } from '@jest/globals';
import { Command } from 'commander';
import { COMMANDS, commandsIn } from './catalogue.js';

describe('the command catalogue', () => {
  it('lists each command under the name and description it registers', async () => {
    for (const entry of COMMANDS) {
      const program = new Command('rloop');
      (await entry.load())(program);
      const command = program.commands.find((c) => c.name() === entry.name);
      expect({ name: entry.name, description: command?.description() }).toEqual({
        name: entry.name,
        description: entry.summary,
      });
    }
  });

  it('loads only the commands named on the command line, whatever stands around them', () => {
    expect(commandsIn(['--help'])).toEqual([]);
    expect(commandsIn(['review', '.', '--format', 'sarif']).map((c) => c.name)).toEqual(['review']);
    expect(commandsIn(['--namespace', 'review', 'status']).map((c) => c.name)).toEqual(['status', 'review']);
  });
});
