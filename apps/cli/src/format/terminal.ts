// Untrusted text (file names, messages written from a repository's content or by a model) is
// escaped with @rloop/domain's escapeControlChars / oneLine before it is styled here.

/** ANSI styles, or plain text when colour is off. */
export interface Palette {
  readonly enabled: boolean;
  red(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  green(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
  underline(text: string): string;
}

function style(open: number, close: number, enabled: boolean): (text: string) => string {
  return enabled ? (text) => `\u001b[${open}m${text}\u001b[${close}m` : (text) => text;
}

export function palette(enabled: boolean): Palette {
  return {
    enabled,
    red: style(31, 39, enabled),
    yellow: style(33, 39, enabled),
    blue: style(34, 39, enabled),
    green: style(32, 39, enabled),
    dim: style(2, 22, enabled),
    bold: style(1, 22, enabled),
    underline: style(4, 24, enabled),
  };
}

/**
 * Whether to colour output, the way most CLIs decide: FORCE_COLOR wins (`0` or `false` turns colour
 * off), then NO_COLOR (any non-empty value turns it off, https://no-color.org), then whether the
 * stream is a terminal.
 */
export function colourWanted(
  env: { readonly FORCE_COLOR?: string | undefined; readonly NO_COLOR?: string | undefined },
  isTty: boolean,
): boolean {
  if (env.FORCE_COLOR !== undefined) return !['0', 'false'].includes(env.FORCE_COLOR.trim().toLowerCase());
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTty;
}
