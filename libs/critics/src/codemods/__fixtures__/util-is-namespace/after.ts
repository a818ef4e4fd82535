
export function isList(value: unknown): boolean {
  return Array.isArray(value);
}
