import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const LOCALE = /^[a-z]{2}(-[A-Z]{2})?$/;

export function loadLocale(locale) {
  if (!LOCALE.test(locale)) throw new RangeError(`unknown locale ${locale}`);
  return JSON.parse(readFileSync(join(import.meta.dirname, 'locales', `${locale}.json`), 'utf8'));
}
