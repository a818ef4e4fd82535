// Imported alone: the calls are rewritten and the imports they leave unused removed.
import { isArray, isFunction, promisify } from 'node:util';

export const callable = (value) => isArray(value) || isFunction(value);
export const later = promisify(setTimeout);
