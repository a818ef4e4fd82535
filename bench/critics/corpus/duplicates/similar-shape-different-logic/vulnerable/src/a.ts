export function parseConfig(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const [key, ...rest] = trimmed.split('=');
    if (key === undefined) continue;
    out[key.trim()] = rest.join('=').trim();
  }
  return out;
}
