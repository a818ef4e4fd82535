import { writeFile } from 'fs/promises';
import { join } from 'path';

const DIR = process.cwd() + '/notes';

export async function saveNote(fileName: string, content: string): Promise<void> {
  await writeFile(join(DIR, fileName), content); // VULN: path-traversal
}
