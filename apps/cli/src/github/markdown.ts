/**
 * Untrusted text (a finding's title, written from repository content or by a model) in a GitHub
 * comment: Markdown and HTML syntax is escaped so it shows as written, and `@` is an entity so no
 * one is mentioned (and notified) by a repository's content.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/[\\`*_{}[\]()<>#+!|~-]/g, (ch) => `\\${ch}`)
    .replace(/@/g, '&#64;')
    .replace(/\r?\n/g, ' ');
}

/** Untrusted text inside inline code: backticks are doubled out (the span uses a longer fence). */
export function inlineCode(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${longest > 0 ? ' ' : ''}${text.replace(/\r?\n/g, ' ')}${longest > 0 ? ' ' : ''}${fence}`;
}
