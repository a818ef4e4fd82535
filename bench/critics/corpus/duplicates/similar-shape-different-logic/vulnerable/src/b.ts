export function parseHeaders(raw: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of raw.split('\r\n')) {
    const line = entry.trim();
    if (line === '' || line.startsWith(':')) continue;
    const [name, ...values] = line.split(':'); // VULN: duplicate
    if (name === undefined) continue;
    headers[name.trim().toLowerCase()] = values.join(':').trim();
  }
  return headers;
}
