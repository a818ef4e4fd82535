import { readFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CliError } from '../program.js';

/**
 * Reads a plan file (YAML or JSON) into a plain object ready to post. A relative `repo.path` is
 * resolved against the plan file's directory, so plans can sit next to the code they describe.
 * Validation is the gate's job: this only reads and normalises paths.
 */
export async function loadPlanFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read plan ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let raw: unknown;
  try {
    raw =
      extname(path).toLowerCase() === '.json'
        ? JSON.parse(text)
        : parseYaml(text, { uniqueKeys: true, maxAliasCount: 50 });
  } catch (error) {
    throw new CliError(
      `${path} is not valid ${extname(path).toLowerCase() === '.json' ? 'JSON' : 'YAML'}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new CliError(`${path} must hold a plan object (slug, title, files, repo, …)`);
  const plan = { ...(raw as Record<string, unknown>) };
  const repo = plan['repo'];
  if (typeof repo === 'object' && repo !== null && !Array.isArray(repo)) {
    const repoPath = (repo as Record<string, unknown>)['path'];
    if (typeof repoPath === 'string' && !isAbsolute(repoPath)) {
      plan['repo'] = { ...(repo as Record<string, unknown>), path: resolve(dirname(resolve(path)), repoPath) };
    }
  }
  return plan;
}
