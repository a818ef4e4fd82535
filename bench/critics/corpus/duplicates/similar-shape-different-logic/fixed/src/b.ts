export function parseHeaders(raw: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of raw.split('\r\n')) {
    const index = entry.indexOf(':');
    if (index <= 0) continue;
    headers[entry.slice(0, index).trim().toLowerCase()] = entry.slice(index + 1).trim();
  }
  return headers;
}
