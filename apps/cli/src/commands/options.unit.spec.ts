import { describe, expect, it, jest } from '@jest/globals';
import { note, out } from './options.js';

describe("the CLI's text output", () => {
  it('given a line carrying a terminal escape, a carriage return and a bidi override (from a journaled letter or report), when printed, then they are shown escaped', () => {
    const written: string[] = [];
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    try {
      out('finding in src/a\u001b]0;owned\u0007.ts\rfake line');
      note('note \u202eevil\nnext line');
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
    expect(written).toEqual(['finding in src/a\\x1b]0;owned\\x07.ts\\rfake line\n', 'note \\u202eevil\nnext line\n']);
  });
});
