import type { FrameworkModel, SinkRule } from './types.js';

const MODULES = ['fs', 'fs-extra', 'graceful-fs', 'original-fs'];

/** Functions whose first argument is a path. */
const ONE_PATH = [
  'readFile',
  'readFileSync',
  'writeFile',
  'writeFileSync',
  'appendFile',
  'appendFileSync',
  'createReadStream',
  'createWriteStream',
  'unlink',
  'unlinkSync',
  'rm',
  'rmSync',
  'rmdir',
  'rmdirSync',
  'mkdir',
  'mkdirSync',
  'readdir',
  'readdirSync',
  'stat',
  'statSync',
  'lstat',
  'lstatSync',
  'access',
  'accessSync',
  'exists',
  'existsSync',
  'open',
  'openSync',
  'opendir',
  'opendirSync',
  'truncate',
  'truncateSync',
  'chmod',
  'chmodSync',
  'chown',
  'chownSync',
  'readlink',
  'readlinkSync',
  'utimes',
  'utimesSync',
  'watch',
  'watchFile',
  // fs-extra
  'outputFile',
  'outputFileSync',
  'readJson',
  'readJsonSync',
  'readJSON',
  'writeJson',
  'writeJsonSync',
  'outputJson',
  'remove',
  'removeSync',
  'emptyDir',
  'ensureDir',
  'ensureFile',
  'pathExists',
];
/** Functions whose first two arguments are paths. */
const TWO_PATHS = [
  'copyFile',
  'copyFileSync',
  'rename',
  'renameSync',
  'link',
  'linkSync',
  'symlink',
  'symlinkSync',
  'cp',
  'cpSync',
  'copy',
  'copySync',
  'move',
  'moveSync',
];

const sinks: SinkRule[] = [
  { kind: 'path', call: { module: MODULES, member: ONE_PATH }, args: [0] },
  { kind: 'path', call: { module: MODULES, member: TWO_PATHS }, args: [0, 1] },
];

/** Node's file system and its drop-in replacements (`fs/promises` is normalised to fs). */
export const fsModel: FrameworkModel = {
  id: 'node:fs',
  description: 'fs, fs/promises, fs-extra and graceful-fs: path arguments of file operations.',
  sinks,
  // Without an import (a global helper or a missing require), only the names no other API uses.
  unboundAliases: {
    module: 'fs',
    names: [...ONE_PATH, ...TWO_PATHS].filter((name) => name.endsWith('Sync') || name.startsWith('create')),
  },
};
