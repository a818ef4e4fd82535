// s.substr(…) → slice / substring where provably equivalent.
export function parts(code: string, start: number, length: number): string[] {
  return [
    code.slice(2),
    code.slice(-3),
    code.substring(0, length),
    code.slice(1, 5),
    code?.slice(start),
    // Stays: a computed start and length (slice would differ for negative values).
    code.substr(start, length),
  ];
}
