import fs from 'node:fs';

export function ifPresent(path: string, then: () => void): void {
  fs.access(path, (error) => {
    if (error === null) then();
  });
}
