export function initials(name: string): string {
  return name
    .split(' ')
    .map((part) => part.slice(0, 1).toUpperCase())
    .join('');
}
