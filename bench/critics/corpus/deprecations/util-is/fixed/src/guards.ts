export function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}
