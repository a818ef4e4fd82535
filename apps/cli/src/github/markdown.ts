import { escapeControlChars } from '@rloop/domain';

/**
 * Untrusted text (a finding's title, written from repository content or by a model) in a GitHub
 * comment: stricter than the letter's `mdText` — every Markdown and HTML character is escaped so
 * it shows as written, `@` is an entity so no one is mentioned (and notified) by a repository's
 * content, control characters are shown escaped, and it stays on one line. Inline code in a
 * comment uses `mdCode` from @rloop/domain.
 */
export function escapeMarkdown(text: string): string {
  return escapeControlChars(text.replace(/\r\n/g, '\n'))
    .replace(/&/g, '&amp;')
    .replace(/[\\`*_{}[\]()<>#+!|~-]/g, (ch) => `\\${ch}`)
    .replace(/@/g, '&#64;')
    .replace(/\n/g, ' ');
}
