/**
 * Text that reaches a terminal from untrusted sources (file names, finding messages written from a
 * repository's content or by a model) is shown, never interpreted: control characters (escape
 * sequences could move the cursor, rewrite earlier lines or set the window title) and the Unicode
 * bidirectional overrides of "Trojan source" attacks are replaced by visible escapes.
 */
export function escapeTerminal(text: string): string {
  // C0 controls but tab, DEL, C1 controls, bidi embeddings/overrides/isolates, and line/paragraph separators.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point here
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (ch) => {
    const code = ch.charCodeAt(0);
    if (ch === '\n') return '\\n';
    if (ch === '\r') return '\\r';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

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
export function colourWanted(env: { readonly FORCE_COLOR?: string | undefined; readonly NO_COLOR?: string | undefined }, isTty: boolean): boolean {
  if (env.FORCE_COLOR !== undefined) return !['0', 'false'].includes(env.FORCE_COLOR.trim().toLowerCase());
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTty;
}
