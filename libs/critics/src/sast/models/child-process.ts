import ts from 'typescript';
import type { Val } from '../model.js';
import type { CallView, FrameworkModel } from './types.js';

const SHELL_PROGRAMS =
  /^(sh|bash|zsh|dash|ksh|fish|cmd|cmd\.exe|powershell|pwsh|\/bin\/sh|\/bin\/bash|\/usr\/bin\/env)$/;
const SPAWN = ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork'];
/** cross-spawn's `spawn.sync` (the package is normalised to child_process). */
const CROSS_SPAWN = ['', 'sync'];
const SHELL = ['exec', 'execSync'];

/** The last options object literal of a call (`{ cwd, env, shell }`). */
function optionsOf(call: CallView): { val: Val; literal: ts.ObjectLiteralExpression } | null {
  for (let index = call.args.length - 1; index >= 0; index -= 1) {
    const val = call.args[index] ?? null;
    if (val !== null && val.k === 'obj' && val.literal !== null) return { val, literal: val.literal };
  }
  return null;
}

/** `{ shell: true }` (any value but a literal false). */
function shellOption(literal: ts.ObjectLiteralExpression): boolean {
  return literal.properties.some(
    (p) =>
      p.name !== undefined &&
      ts.isIdentifier(p.name) &&
      p.name.text === 'shell' &&
      (!ts.isPropertyAssignment(p) || p.initializer.kind !== ts.SyntaxKind.FalseKeyword),
  );
}

/**
 * The argument array when a shell parses it: `spawn(cmd, args, { shell: true })`, or
 * `spawn('sh', ['-c', script])`. The options object (env, cwd) is not part of the command line,
 * even when it is the second argument: `spawn(command, { env, shell: true })`.
 */
function argvThroughShell(call: CallView): Val {
  const options = optionsOf(call);
  const program = call.literal(0);
  const argv = call.argNodes[1];
  const viaShell =
    program !== null &&
    SHELL_PROGRAMS.test(program) &&
    argv !== undefined &&
    /['"](-c|\/c|-Command|\/C)['"]/.test(argv.getText());
  const shell = options !== null && shellOption(options.literal);
  const second = call.args[1] ?? null;
  return (shell || viaShell) && second !== options?.val ? second : null;
}

/** child_process and the packages that wrap it: a shell parses the command, or the program itself comes from input. */
export const childProcessModel: FrameworkModel = {
  id: 'node:child_process',
  description:
    'child_process, cross-spawn, execa and shelljs: commands parsed by a shell, programs started from input, argument arrays handed to a shell.',
  sinks: [
    { kind: 'command', call: { module: 'child_process', member: SHELL }, args: [0] },
    { kind: 'command', call: { module: 'execa', member: /^execaCommand/ }, args: [0] },
    { kind: 'command', call: { module: 'shelljs', member: 'exec' }, args: [0] },
    // cross-spawn is normalised to child_process: `spawn(cmd)` with the package itself called.
    { kind: 'command', call: { module: 'child_process', member: [...CROSS_SPAWN, ...SPAWN] }, args: [0] },
    { kind: 'command', call: { module: 'execa', member: ['', 'execa', 'execaSync', 'execaNode'] }, args: [0] },
    { kind: 'command', call: { module: 'child_process', member: [...CROSS_SPAWN, ...SPAWN] }, value: argvThroughShell },
    {
      kind: 'command',
      call: { module: 'execa', member: ['', 'execa', 'execaSync', 'execaNode'] },
      value: argvThroughShell,
    },
  ],
  // `require('shelljs/global')` or a missing import: the bare names still mean these functions.
  unboundAliases: { module: 'child_process', names: [...SHELL, ...SPAWN] },
};
