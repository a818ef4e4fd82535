import type { FrameworkModel } from './types.js';

const COMPILE = ['runInNewContext', 'runInThisContext', 'runInContext', 'compileFunction'];
const COMPILE_CLASSES = ['Script', 'SourceTextModule'];

/**
 * Node's vm module and the sandboxes built on it (vm2, safe-eval): neither is a security boundary
 * for code an attacker writes (vm2 is discontinued after sandbox escapes).
 */
export const vmModel: FrameworkModel = {
  id: 'node:vm',
  description:
    'vm.runIn*Context / compileFunction / new vm.Script, vm2 VM/NodeVM.run and VMScript, safe-eval: input compiled as code.',
  sinks: [
    { kind: 'code', call: { module: 'vm', member: [...COMPILE, ...COMPILE_CLASSES] }, args: [0] },
    { kind: 'code', call: { module: 'vm', member: COMPILE_CLASSES }, construct: true, args: [0] },
    // On a compiled Script the argument is the context object, not code: `script.runInNewContext({ user })`.
    { kind: 'code', call: { module: 'vm2', member: ['run', 'runFile'], instance: true }, args: [0] },
    { kind: 'code', call: { module: 'vm2', member: 'VMScript' }, construct: true, args: [0] },
    { kind: 'code', call: { module: 'safe-eval', member: '' }, args: [0] },
  ],
  instanceModules: ['vm2'],
};
