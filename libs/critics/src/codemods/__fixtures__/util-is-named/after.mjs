// Imported alone: the calls are rewritten and the imports they leave unused removed.
import { promisify } from 'node:util';

export const callable = (value) => Array.isArray(value) || typeof value === 'function';
export const later = promisify(setTimeout);
