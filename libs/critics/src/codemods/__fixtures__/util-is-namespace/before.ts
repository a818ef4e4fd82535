import * as util from 'node:util';

export function isList(value: unknown): boolean {
  return util.isArray(value);
}
