import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('node:vm model (vm, vm2, safe-eval)', [
  {
    name: 'vm.runInNewContext, new vm.Script, vm2 run and safe-eval of request input',
    vulnerable: {
      'src/sandbox.ts': `import vm from 'node:vm';
import { VM, NodeVM, VMScript } from 'vm2';
import safeEval from 'safe-eval';
export function run(req: { body: { code: string } }) {
  vm.runInNewContext(req.body.code, {}); // SINK code
  new vm.Script(req.body.code); // SINK code
  new VM({ timeout: 100 }).run(req.body.code); // SINK code
  new NodeVM().run(req.body.code); // SINK code
  new VMScript(req.body.code); // SINK code
  safeEval(req.body.code); // SINK code
}
`,
    },
    safe: {
      'src/sandbox.ts': `import vm from 'node:vm';
import { VM } from 'vm2';
const script = new vm.Script('total = a + b');
export function run(req: { body: { a: string; b: string } }) {
  script.runInNewContext({ a: Number(req.body.a), b: Number(req.body.b) });
  new VM({ sandbox: { name: String(req.body.a) } }).run('name.length');
}
`,
    },
  },
]);
