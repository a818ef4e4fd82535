// s.substr(…) → slice / substring where provably equivalent.
export function parts(code: string, start: number, length: number): string[] {
  return [
    code.substr(2),
    code.substr(-3),
    code.substr(0, length),
    code.substr(1, 4),
    code?.substr(start),
    // Stays: a computed start and length (slice would differ for negative values).
    code.substr(start, length),
  ];
}
