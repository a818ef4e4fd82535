import fs from 'node:fs';

export function ifPresent(path: string, then: () => void): void {
  fs.exists(path, (present) => { // VULN: deprecation
    if (present) then();
  });
}
