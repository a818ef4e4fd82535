import { writeFile } from 'fs/promises';
import { basename, join } from 'path';

const DIR = process.cwd() + '/notes';

export async function saveNote(fileName: string, content: string): Promise<void> {
  await writeFile(join(DIR, basename(fileName)), content);
}
