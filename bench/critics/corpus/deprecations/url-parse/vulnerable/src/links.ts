import { parse } from 'node:url';

export function hostOf(link: string): string | null {
  return parse(link).hostname; // VULN: deprecation
}
