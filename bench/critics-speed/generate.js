// Generates a deterministic TypeScript tree of realistic-looking service code for the speed bench:
// express routes (some with request input flowing into sinks, some sanitised), services with
// SQL, utility modules, and a few copy-pasted blocks for the duplicate detector to find.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function rng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = [
  'order',
  'invoice',
  'customer',
  'product',
  'account',
  'payment',
  'shipment',
  'report',
  'session',
  'ticket',
  'review',
  'coupon',
  'warehouse',
  'supplier',
  'refund',
];

const SHARED_BLOCK = (name) => [
  `export function ${name}(items: { quantity: number; unitPrice: number; sku: string }[], taxRate: number): number {`,
  '  let subtotal = 0;',
  '  for (const item of items) {',
  '    if (item.quantity <= 0) throw new Error(`bad quantity for ${item.sku}`);',
  '    subtotal += item.quantity * item.unitPrice;',
  '  }',
  '  const discount = subtotal > 1000 ? subtotal * 0.05 : 0;',
  '  const taxed = (subtotal - discount) * (1 + taxRate);',
  '  return Math.round(taxed * 100) / 100;',
  '}',
];

// Random statements and expressions, so that the tree is not full of accidental structural clones
// (real code repeats itself far less than a template would).
const OPS = ['+', '-', '*', '%', '<', '>', '<=', '===', '!==', '&&', '||', '??'];
const CALLS = ['Math.max', 'Math.min', 'Math.abs', 'String', 'Number', 'Boolean', 'JSON.stringify'];

function expression(random, vars, depth) {
  const roll = random();
  if (depth <= 0 || roll < 0.3) {
    const leaf = random();
    if (leaf < 0.5 && vars.length > 0) return vars[Math.floor(random() * vars.length)];
    if (leaf < 0.8) return String(Math.floor(random() * 1000));
    return `'${WORDS[Math.floor(random() * WORDS.length)]}'`;
  }
  if (roll < 0.65)
    return `(${expression(random, vars, depth - 1)} ${OPS[Math.floor(random() * OPS.length)]} ${expression(random, vars, depth - 1)})`;
  if (roll < 0.8) return `${CALLS[Math.floor(random() * CALLS.length)]}(${expression(random, vars, depth - 1)})`;
  if (roll < 0.9)
    return `(${expression(random, vars, depth - 1)} ? ${expression(random, vars, depth - 1)} : ${expression(random, vars, depth - 1)})`;
  return `[${expression(random, vars, depth - 1)}, ${expression(random, vars, depth - 1)}].length`;
}

function statements(random, vars, depth, indent, out, budget) {
  const count = Math.floor(random() * 4) + 1;
  for (let i = 0; i < count && out.length < budget; i += 1) {
    const roll = random();
    const pad = '  '.repeat(indent);
    if (roll < 0.35 || depth <= 0) {
      const name = `${WORDS[Math.floor(random() * WORDS.length)]}${Math.floor(random() * 1000)}`;
      out.push(`${pad}const ${name} = ${expression(random, vars, 2)};`);
      vars.push(name);
    } else if (roll < 0.55) {
      out.push(`${pad}if (${expression(random, vars, 2)}) {`);
      statements(random, [...vars], depth - 1, indent + 1, out, budget);
      out.push(`${pad}}`);
    } else if (roll < 0.7) {
      const index = `i${Math.floor(random() * 100)}`;
      out.push(`${pad}for (let ${index} = 0; ${index} < ${Math.floor(random() * 20) + 1}; ${index} += 1) {`);
      statements(random, [...vars, index], depth - 1, indent + 1, out, budget);
      out.push(`${pad}}`);
    } else if (roll < 0.8) {
      out.push(`${pad}log.push(${expression(random, vars, 2)});`);
    } else if (roll < 0.9) {
      out.push(`${pad}try {`);
      statements(random, [...vars], depth - 1, indent + 1, out, budget);
      out.push(`${pad}} catch (error) {`, `${pad}  log.push(String(error));`, `${pad}}`);
    } else if (roll < 0.93) {
      out.push(
        `${pad}while (log.length > ${Math.floor(random() * 10) + 2}) log.${random() < 0.5 ? 'shift' : 'pop'}();`,
      );
    } else if (roll < 0.96) {
      const name = `${WORDS[Math.floor(random() * WORDS.length)]}List${Math.floor(random() * 100)}`;
      out.push(
        `${pad}const ${name} = [${expression(random, vars, 1)}, ${expression(random, vars, 1)}].map((x) => ${expression(random, [...vars, 'x'], 1)});`,
      );
      vars.push(name);
    } else {
      out.push(
        `${pad}switch (${expression(random, vars, 1)}) {`,
        `${pad}  case ${Math.floor(random() * 9)}:`,
        `${pad}    log.push(${expression(random, vars, 1)});`,
        `${pad}    break;`,
        `${pad}  default:`,
        `${pad}    log.length = 0;`,
        `${pad}}`,
      );
    }
  }
}

function utilFunction(random, name) {
  const params = ['input', 'limit', 'offset', 'weight', 'label'].slice(0, Math.floor(random() * 4) + 1);
  const body = [
    `export function ${name}(${params.map((p) => `${p}: number`).join(', ')}, log: unknown[] = []): unknown {`,
  ];
  statements(random, [...params], 3, 1, body, 18);
  body.push(`  return ${expression(random, params, 2)};`, '}', '');
  return body;
}

function serviceClass(random, entity) {
  const cls = entity[0].toUpperCase() + entity.slice(1);
  const lines = [
    `export class ${cls}Service {`,
    `  constructor(private readonly db: { query(sql: string, values?: unknown[]): Promise<{ rows: unknown[] }> }) {}`,
    '',
  ];
  const methods = [
    () => [
      `  async find${cls}(id: string) {`,
      `    const { rows } = await this.db.query('SELECT * FROM ${entity}s WHERE id = $1', [id]);`,
      `    return rows[0] ?? null;`,
      `  }`,
    ],
    () => [
      `  async search${cls}(term: string, limit: number) {`,
      `    const safeLimit = Math.min(100, Math.max(1, limit));`,
      `    const { rows } = await this.db.query('SELECT * FROM ${entity}s WHERE name ILIKE $1 LIMIT ' + safeLimit, ['%' + term + '%']);`,
      `    return rows;`,
      `  }`,
    ],
    () => [
      `  async unsafe${cls}(name: string) {`,
      `    return this.db.query(\`SELECT * FROM ${entity}s WHERE name = '\${name}'\`);`,
      `  }`,
    ],
  ];
  for (const method of methods) if (random() < 0.7) lines.push(...method(), '');
  const extra = Math.floor(random() * 3) + 1;
  for (let m = 0; m < extra; m += 1) {
    lines.push(`  compute${m}(input: number, limit: number, log: unknown[] = []): unknown {`);
    statements(random, ['input', 'limit'], 3, 2, lines, lines.length + 14);
    lines.push(`    return ${expression(random, ['input', 'limit'], 2)};`, '  }', '');
  }
  lines.push('}', '');
  return lines;
}

function routesFile(random, entity, index) {
  const cls = entity[0].toUpperCase() + entity.slice(1);
  const lines = [
    `import { Router } from 'express';`,
    `import { exec } from 'node:child_process';`,
    `import path from 'node:path';`,
    `import { ${cls}Service } from '../services/${entity}-service-${index}.js';`,
    '',
    `const service = new ${cls}Service({ query: async () => ({ rows: [] }) });`,
    `export const router = Router();`,
  ];
  if (random() < 0.5)
    lines.push(
      `const ALLOWED = [${WORDS.slice(0, Math.floor(random() * 5) + 2)
        .map((w) => `'${w}'`)
        .join(', ')}];`,
    );
  lines.push('');
  const routes = Math.floor(random() * 3) + 2;
  for (let r = 0; r < routes; r += 1) {
    const kind = Math.floor(random() * 8);
    const method = ['get', 'post', 'put', 'delete', 'patch'][Math.floor(random() * 5)];
    lines.push(`router.${method}('/${entity}/${index}/${r}${random() < 0.5 ? '/:id' : ''}', async (req, res) => {`);
    lines.push(`  const log: unknown[] = [];`);
    statements(random, ['log'], 3, 1, lines, lines.length + 10 + Math.floor(random() * 10));
    if (kind === 0) lines.push(`  res.json(await service.find${cls}(String(req.params.id)));`);
    else if (kind === 1)
      lines.push(
        `  res.status(${[200, 201, 202][r % 3]}).json(await service.search${cls}(String(req.query.q), Number(req.query.limit)));`,
      );
    else if (kind === 2)
      lines.push(
        `  const sort = String(req.query.sort);`,
        `  if (!['name', 'created_at'].includes(sort)) return res.status(400).end();`,
        `  res.json({ sort, log });`,
      );
    else if (kind === 3)
      lines.push(`  res.sendFile(path.basename(String(req.query.file)), { root: '/srv/${entity}' });`);
    else if (kind === 4 && random() < 0.3) lines.push(`  exec('ls ' + req.query.dir, () => res.end());`);
    else if (kind === 5 && random() < 0.3)
      lines.push(`  res.json(await service.unsafe${cls}(req.query.name as string));`);
    else lines.push(`  res.json({ ok: log.length, at: ${Math.floor(random() * 1e6)} });`);
    lines.push(`});`, '');
  }
  return lines;
}

/** Writes about `lines` lines of TypeScript under `dir`; returns the list of files. */
export function generateTree(dir, { lines: target = 50_000, seed = 42 } = {}) {
  const random = rng(seed);
  const files = [];
  let total = 0;
  let index = 0;
  while (total < target) {
    const entity = WORDS[index % WORDS.length];
    const chunks = [];
    const service = serviceClass(random, entity);
    const routes = routesFile(random, entity, index);
    const utils = [];
    const count = Math.floor(random() * 8) + 6;
    for (let u = 0; u < count; u += 1) utils.push(...utilFunction(random, `${entity}Helper${index}x${u}`));
    if (index % 7 === 0) utils.push(...SHARED_BLOCK(`${entity}Total${index}`), '');
    chunks.push([`services/${entity}-service-${index}.ts`, service]);
    chunks.push([`routes/${entity}-routes-${index}.ts`, routes]);
    chunks.push([`utils/${entity}-utils-${index}.ts`, utils]);
    for (const [file, body] of chunks) {
      const path = join(dir, 'src', file);
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, `${body.join('\n')}\n`);
      files.push(`src/${file}`);
      total += body.length + 1;
    }
    index += 1;
  }
  writeFileSync(join(dir, 'package.json'), '{ "name": "generated", "private": true, "type": "module" }\n');
  // A checkout that has been on disk for a while (reviews rely on file times for unchanged files).
  const earlier = new Date(Date.now() - 3_600_000);
  for (const file of files) utimesSync(join(dir, file), earlier, earlier);
  return { files, lines: total };
}
