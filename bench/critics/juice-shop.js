#!/usr/bin/env node
// Measures the SAST, input-validation and secrets critics on OWASP Juice Shop — public code nobody
// here wrote, with known vulnerabilities — and prints recall on them, precision on the coding
// challenges' fixed snippets, and every other finding for a reader to judge. Nothing of Juice Shop
// is kept in this repository: fetch a checkout yourself (pinned below; line numbers refer to it).
//
//   git clone https://github.com/juice-shop/juice-shop && git -C juice-shop checkout 33518f5a0
//   npx tsc -b libs/critics/tsconfig.lib.json && node bench/critics/juice-shop.js /path/to/juice-shop [--critics <index.js>] [--json]
//
// --critics loads another build of @rloop/critics (before/after figures of a change).
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const criticsAt = args.indexOf('--critics');
const criticsModule = criticsAt < 0 ? null : args[criticsAt + 1];
const positional = args.filter((a, i) => !a.startsWith('--') && !(criticsAt >= 0 && i === criticsAt + 1));
const checkout = positional[0] === undefined ? null : resolve(positional[0]);
if (checkout === null || !existsSync(join(checkout, 'routes'))) {
  process.stderr.write(
    'usage: node bench/critics/juice-shop.js <juice-shop checkout at 33518f5a0> [--critics <index.js>] [--json]\n',
  );
  process.exit(2);
}
const { builtInCritics, runCritic } = await import(
  criticsModule === null ? '@rloop/critics' : pathToFileURL(resolve(criticsModule)).href
);
const NOW = new Date('2026-11-30T00:00:00Z');

/**
 * Known vulnerabilities in the categories the critics cover (file, line of the sink, finding type),
 * from Juice Shop's challenges and its `vuln-code-snippet vuln-line` markers. Ones the engine does
 * not model are listed too (`why` says what it would take), so recall is not flattered.
 */
const KNOWN = [
  { file: 'routes/login.ts', line: 34, type: 'sast/sql-injection', challenge: 'loginAdmin/loginBender/loginJim' },
  { file: 'routes/search.ts', line: 23, type: 'sast/sql-injection', challenge: 'unionSqlInjection/dbSchema' },
  { file: 'routes/showProductReviews.ts', line: 36, type: 'sast/code-injection', challenge: 'noSqlCommand ($where)' },
  { file: 'routes/trackOrder.ts', line: 18, type: 'sast/code-injection', challenge: 'noSqlOrders ($where)' },
  {
    file: 'routes/userProfile.ts',
    line: 61,
    type: 'sast/code-injection',
    challenge: 'usernameXss / SSTI (eval of the stored username)',
  },
  {
    file: 'routes/userProfile.ts',
    line: 87,
    type: 'sast/code-injection',
    challenge: 'SSTI (pug template built from the stored username)',
  },
  {
    file: 'routes/redirect.ts',
    line: 19,
    type: 'sast/open-redirect',
    challenge: 'redirect (allowlist checked with url.includes)',
  },
  { file: 'routes/profileImageUrlUpload.ts', line: 24, type: 'sast/ssrf', challenge: 'ssrf' },
  {
    file: 'routes/dataErasure.ts',
    line: 107,
    type: 'sast/path-traversal',
    challenge: 'lfr (layout in the spread request body)',
  },
  {
    file: 'routes/updateProductReviews.ts',
    line: 17,
    type: 'validation/nosql-injection',
    challenge: 'noSqlReviews (operator in _id)',
  },
  {
    file: 'frontend/src/app/search-result/search-result.component.ts',
    line: 143,
    type: 'sast/xss',
    challenge: 'localXss / xssBonus',
  },
  {
    file: 'frontend/src/app/search-result/search-result.component.ts',
    line: 110,
    type: 'sast/xss',
    challenge: 'restfulXss',
    why: 'the source is an API response (data the server stored), not modelled',
  },
  {
    file: 'routes/b2bOrder.ts',
    line: 23,
    type: 'sast/code-injection',
    challenge: 'rce (notevil inside a vm context)',
    why: 'the code string is constant; the input is evaluated by a function placed in the sandbox',
  },
  {
    file: 'routes/fileUpload.ts',
    line: 34,
    type: 'sast/path-traversal',
    challenge: 'fileWrite (zip slip)',
    why: 'archive entry names are not modelled as input',
  },
  { file: 'lib/insecurity.ts', line: 42, type: 'secret/hardcoded-key', challenge: 'HMAC key literal' },
  {
    file: 'lib/insecurity.ts',
    line: 54,
    type: 'secret/hardcoded-key',
    challenge: 'jwt.sign with the private key literal',
  },
  {
    file: 'lib/insecurity.ts',
    line: 150,
    type: 'secret/hardcoded-key',
    challenge: 'createHmac with the private key literal',
  },
  { file: 'server.ts', line: 289, type: 'secret/hardcoded-key', challenge: 'cookie-parser secret literal' },
];

/**
 * The coding challenges' snippets (data/static/codefixes) whose category the critics cover, by
 * reading each: `vulnerable` when it still builds input into the sink, `safe` when it does not
 * (the `_correct` fix, and wrong fixes that are wrong for another reason: a hashed password, a
 * bound parameter with a functional bug). Snippets without their class or route (the Angular and
 * the allowlist-only ones) cannot be analysed and are left out.
 */
const CODEFIXES = {
  'sast/sql-injection': {
    vulnerable: [
      'dbSchemaChallenge_1',
      'dbSchemaChallenge_3',
      'loginAdminChallenge_1',
      'loginBenderChallenge_1',
      'loginBenderChallenge_4',
      'loginJimChallenge_2',
      'loginJimChallenge_4',
      'unionSqlInjectionChallenge_1',
      'unionSqlInjectionChallenge_3',
    ],
    safe: [
      'dbSchemaChallenge_2_correct',
      'loginAdminChallenge_2',
      'loginAdminChallenge_3',
      'loginAdminChallenge_4_correct',
      'loginBenderChallenge_2_correct',
      'loginBenderChallenge_3',
      'loginJimChallenge_1_correct',
      'loginJimChallenge_3',
      'unionSqlInjectionChallenge_2_correct',
    ],
  },
  'validation/nosql-injection': {
    vulnerable: ['noSqlReviewsChallenge_1', 'noSqlReviewsChallenge_2'],
    safe: ['noSqlReviewsChallenge_3_correct'],
  },
};

function walk(dir, root = dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '.git' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, root, out);
    else out.push(relative(root, path).split(sep).join('/'));
  }
  return out;
}

const files = walk(checkout);
const critics = builtInCritics({
  now: NOW,
  only: ['security/sast-scanner', 'security/input-validation-checker', 'security/secrets-detector'],
});
const findings = [];
for (const critic of critics) {
  const run = await runCritic(critic, {
    repoDir: checkout,
    commit: '0'.repeat(40),
    files,
    phase: 'final_sweep',
    now: NOW,
  });
  if (run.status !== 'reported') throw new Error(`${critic.id} did not report: ${run.reason} ${run.message}`);
  findings.push(...run.findings);
}
const at = (file, line, type) =>
  findings.find(
    (f) => f.file === file && f.line_range.start <= line && line <= f.line_range.end && f.finding_type === type,
  );

const known = KNOWN.map((k) => ({ ...k, found: at(k.file, k.line, k.type) !== undefined }));
const codefixes = Object.entries(CODEFIXES).map(([type, sets]) => {
  const flagged = (name) =>
    findings.some((f) => f.file === `data/static/codefixes/${name}.ts` && f.finding_type === type);
  return {
    type,
    vulnerable: sets.vulnerable.length,
    found: sets.vulnerable.filter(flagged).length,
    safe: sets.safe.length,
    flaggedSafe: sets.safe.filter(flagged),
  };
});
const explained = new Set(known.filter((k) => k.found).map((k) => `${k.file}:${k.line}:${k.type}`));
const others = findings
  .filter(
    (f) =>
      f.finding_type.startsWith('sast/') ||
      f.finding_type.startsWith('secret/hardcoded-key') ||
      f.finding_type === 'validation/nosql-injection',
  )
  .filter((f) => !f.file.startsWith('data/static/codefixes/'))
  .filter(
    (f) =>
      !known.some(
        (k) =>
          k.file === f.file && f.line_range.start <= k.line && k.line <= f.line_range.end && f.finding_type === k.type,
      ),
  )
  .map((f) => `${f.finding_type} ${f.file}:${f.line_range.start} — ${f.title}`);

if (args.includes('--json')) {
  process.stdout.write(
    `${JSON.stringify({ checkout, known, codefixes, others, explained: [...explained] }, null, 2)}\n`,
  );
} else {
  const byType = new Map();
  for (const k of known) {
    const row = byType.get(k.type) ?? { found: 0, total: 0 };
    row.total += 1;
    if (k.found) row.found += 1;
    byType.set(k.type, row);
  }
  process.stdout.write(
    `Known vulnerabilities (Juice Shop 33518f5a0): ${known.filter((k) => k.found).length} of ${known.length} found\n`,
  );
  for (const [type, row] of [...byType].sort())
    process.stdout.write(`  ${type.padEnd(28)} ${row.found}/${row.total}\n`);
  for (const k of known)
    process.stdout.write(
      `  ${k.found ? 'found ' : 'MISSED'} ${k.type} ${k.file}:${k.line} (${k.challenge})${!k.found && k.why ? ` — ${k.why}` : ''}\n`,
    );
  process.stdout.write('\nCoding-challenge snippets (data/static/codefixes):\n');
  for (const c of codefixes)
    process.stdout.write(
      `  ${c.type.padEnd(28)} vulnerable found ${c.found}/${c.vulnerable}, safe flagged ${c.flaggedSafe.length}/${c.safe}${c.flaggedSafe.length > 0 ? ` (${c.flaggedSafe.join(', ')})` : ''}\n`,
    );
  process.stdout.write(
    `\nOther findings of these types outside the snippets (${others.length}, for a reader to judge):\n${others.map((o) => `  ${o}`).join('\n')}\n`,
  );
}
