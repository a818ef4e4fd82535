export function hostOf(link: string): string | null {
  try {
    return new URL(link).hostname;
  } catch {
    return null;
  }
}
