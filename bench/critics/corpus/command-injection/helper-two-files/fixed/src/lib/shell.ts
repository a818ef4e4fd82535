import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function runCommand(program: string, args: string[]): Promise<string> {
  const { stdout } = await run(program, args);
  return stdout;
}
