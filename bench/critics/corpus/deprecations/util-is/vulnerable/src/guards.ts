import util from 'node:util';

export function listOf(value: unknown): unknown[] {
  return util.isArray(value) ? value : [value]; // VULN: deprecation
}
