export function initials(name: string): string {
  return name
    .split(' ')
    .map((part) => part.substr(0, 1).toUpperCase()) // VULN: deprecation
    .join('');
}
