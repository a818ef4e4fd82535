export async function fetchTeams(client: { get(url: string): Promise<{ status: number; body: unknown[] }> }, pageNumber: number) {
  const res = await client.get(`/teams?page=${pageNumber}`); // VULN: duplicate
  if (res.status === 404) return [];
  if (res.status !== 200) {
    throw new Error(`teams request failed with ${res.status}`);
  }
  const rows = res.body.filter((row) => row !== null);
  const seen = new Map<string, unknown>();
  for (const row of rows) seen.set(JSON.stringify(row), row);
  return [...seen.values()];
}
