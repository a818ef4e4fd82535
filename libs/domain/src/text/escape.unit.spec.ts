import { describe, expect, it } from '@jest/globals';
import { escapeControlChars, mdCell, mdCode, mdFence, mdText, oneLine } from '../index.js';

describe('escaping untrusted text', () => {
  it('given terminal escape sequences, carriage returns and bidi overrides, when escaped, then they are shown, not obeyed; tabs and newlines stay', () => {
    expect(escapeControlChars('ok\u001b[2J\rgone\u202eevil\tand\nnext\u0085')).toBe(
      'ok\\x1b[2J\\rgone\\u202eevil\tand\nnext\\x85',
    );
  });

  it('given a file name with a newline, when shown on one line or in a code span, then the newline is visible and nothing breaks out', () => {
    expect(oneLine('src/a\n# Heading.js')).toBe('src/a\\n# Heading.js');
    expect(mdCode('src/a\n# Heading.js:3')).toBe('`src/a\\n# Heading.js:3`');
  });

  it('given backticks inside code, when put in a code span or a fence, then the fence is longer than any run inside', () => {
    expect(mdCode('a`b``c')).toBe('```a`b``c```');
    expect(mdCode('`x`')).toBe('`` `x` ``');
    expect(mdFence('```\nescaped?\n```', 'diff')).toBe('````diff\n```\nescaped?\n```\n````');
  });

  it('given table delimiters and HTML in a message, when put in a cell or prose, then the row and the page keep their shape', () => {
    expect(mdCell('a | b\nc')).toBe('a \\| b c');
    expect(mdText('<img src=x onerror=alert(1)> text')).toBe('&lt;img src=x onerror=alert(1)> text');
    expect(mdCode('a|b', { inTable: true })).toBe('`a\\|b`');
  });
});
