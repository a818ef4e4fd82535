import { exec } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(exec);

export async function runCommand(command: string): Promise<string> {
  const { stdout } = await run(command); // VULN: command-injection
  return stdout;
}
