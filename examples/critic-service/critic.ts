// A critic as its own service: flags console.log/debug/trace calls left in production code.
// Build: npx tsc -b examples/critic-service   Run: node examples/critic-service/dist/critic.js
import {
  type FindingDraft,
  criticServiceOptionsFromEnv,
  defineCritic,
  draftFinding,
  runCriticService,
} from '@rloop/critic-sdk';

const CALL = /\bconsole\.(log|debug|trace)\s*\(/;
const SOURCE = /\.(c|m)?[jt]sx?$/;
const NOT_PRODUCTION = /(^|\/)(test|tests|__tests__|scripts?|bench)\/|\.(test|spec)\.[cm]?[jt]sx?$/;
const isProduction = (file: string): boolean => SOURCE.test(file) && !NOT_PRODUCTION.test(file);

const critic = defineCritic({
  id: 'examples/no-console-log',
  evidence: 'pattern',
  description: 'console.log, console.debug and console.trace calls left in production code',
  triggers: ['**/*.{js,jsx,ts,tsx,mjs,cjs,mts,cts}'],
  timeoutMs: 30_000,
  covers: isProduction, // answers say how many of these it analysed, and why it skipped the rest
  run({ files, reader, signal }) {
    const drafts: FindingDraft[] = [];
    for (const file of files.filter(isProduction)) {
      signal.throwIfAborted();
      // The reader stays inside the checkout and its size bound; null: skipped (coverage says why).
      const lines = reader.read(file)?.split('\n') ?? [];
      lines.forEach((line, index) => {
        const call = CALL.exec(line);
        if (call === null || line.trimStart().startsWith('//')) return;
        drafts.push(
          draftFinding({
            severity: 'low',
            category: 'maintainability',
            finding_type: `console/${call[1] ?? 'log'}`,
            file,
            line_range: { start: index + 1, end: index + 1 },
            title: `console.${call[1] ?? 'log'} left in production code`,
            current_behaviour: `${file}:${index + 1} writes to the console: ${line.trim().slice(0, 200)}`,
            expected_behaviour: 'production code logs through the application logger, or not at all',
            observable_test_conditions: [`${file} calls no console.${call[1] ?? 'log'}`],
            forbidden_in_test: ['mocking console to hide the call'],
          }),
        );
      });
    }
    return Promise.resolve(drafts);
  },
});

try {
  await runCriticService(critic, { ...criticServiceOptionsFromEnv(process.env), version: '1.0.0' });
} catch (error) {
  process.stderr.write(`${critic.id}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
