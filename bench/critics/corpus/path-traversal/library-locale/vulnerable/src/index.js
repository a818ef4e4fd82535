import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function loadLocale(locale) {
  return JSON.parse(readFileSync(join(import.meta.dirname, 'locales', `${locale}.json`), 'utf8')); // VULN: path-traversal
}
