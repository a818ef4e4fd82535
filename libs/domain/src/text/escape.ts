// Text from repositories (file names), critics and models is untrusted: escaped before it is put
// into Markdown or printed on a terminal, so it can neither break the document's structure (a
// newline in a file name opening a heading, a `|` splitting a table row, backticks closing a code
// span or fence) nor drive the terminal (escape sequences, carriage returns, bidi overrides).

/**
 * Characters that move the cursor, drive a terminal or reorder what is shown: C0 controls other
 * than tab and newline (carriage return included), DEL, C1 controls, Unicode line and paragraph
 * separators and bidirectional overrides ("Trojan Source").
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point of this expression
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (char === '\r') return '\\r';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character shown as an escape (`\x1b`, `\r`, `\u202e`); tabs and
 * newlines are kept. Safe to print on a terminal.
 *
 * @example escapeControlChars('ok\u001b[2Jgone') // 'ok\\x1b[2Jgone'
 */
export function escapeControlChars(text: string): string {
  return text.replace(CONTROL, visible);
}

/** One line: control characters escaped, newlines (and tabs) shown as `\n` (`\t`). For names (files, ids). */
export function oneLine(text: string): string {
  return escapeControlChars(text).replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}

/** Inline Markdown prose: one line (newlines become spaces), no raw HTML. */
export function mdText(text: string): string {
  return escapeControlChars(text)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/</g, '&lt;');
}

/** A Markdown table cell: inline prose whose `|` cannot split the row. */
export function mdCell(text: string): string {
  return mdText(text).replace(/\|/g, '\\|');
}

/**
 * An inline code span holding `text` verbatim on one line (newlines shown as `\n`): the fence is
 * one backtick longer than the longest run inside. `inTable`: `|` escaped as GitHub's tables need.
 */
export function mdCode(text: string, options: { readonly inTable?: boolean } = {}): string {
  let content = oneLine(text);
  if (options.inTable === true) content = content.replace(/\|/g, '\\|');
  const fence = '`'.repeat(longestRun(content, '`') + 1);
  const pad =
    content.startsWith('`') || content.endsWith('`') || content.startsWith(' ') || content.endsWith(' ') ? ' ' : '';
  return `${fence}${pad}${content}${pad}${fence}`;
}

/** A fenced code block holding `text` (control characters escaped), its fence longer than any backtick run inside. */
export function mdFence(text: string, info = ''): string {
  const content = escapeControlChars(text).replace(/\n$/, '');
  const fence = '`'.repeat(Math.max(3, longestRun(content, '`') + 1));
  return `${fence}${info}\n${content}\n${fence}`;
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let current = 0;
  for (const c of text) {
    current = c === char ? current + 1 : 0;
    if (current > longest) longest = current;
  }
  return longest;
}
