export async function loadUsers(api: { get(path: string): Promise<{ status: number; body: unknown[] }> }, page: number) {
  const response = await api.get(`/users?page=${page}`);
  if (response.status === 404) return [];
  if (response.status !== 200) {
    throw new Error(`users request failed with ${response.status}`);
  }
  const records = response.body.filter((record) => record !== null);
  const unique = new Map<string, unknown>();
  for (const record of records) unique.set(JSON.stringify(record), record);
  return [...unique.values()];
}
