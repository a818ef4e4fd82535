import { isTaint } from '../values.js';
import type { FrameworkModel } from './types.js';

const MODULES = [
  'puppeteer',
  'puppeteer-core',
  'playwright',
  'playwright-core',
  'playwright-chromium',
  'playwright-firefox',
  'playwright-webkit',
];

/**
 * Headless browsers driven by a server: a page opened at, or filled with, what a client sent
 * fetches internal URLs (`file://`, the metadata service) for them; a string evaluated in the page
 * is code.
 */
export const headlessBrowsersModel: FrameworkModel = {
  id: 'headless-browsers',
  description:
    'puppeteer and playwright pages (from launch() → newPage(), or a parameter typed Page): goto and setContent (request forgery), evaluate of a string (code).',
  sinks: [
    {
      kind: 'ssrf',
      call: { module: MODULES, member: ['goto', 'setContent'], instance: true },
      args: [{ index: 0, fields: ['url'] }],
    },
    // evaluate(fn, arg) runs our function with data; evaluate(string) compiles the string.
    {
      kind: 'code',
      call: {
        module: MODULES,
        member: ['evaluate', 'evaluateHandle', 'evaluateOnNewDocument', 'addInitScript'],
        instance: true,
      },
      args: [0],
      when: (call) => isTaint(call.args[0] ?? null),
    },
    {
      kind: 'code',
      call: { module: MODULES, member: ['addScriptTag'], instance: true },
      args: [{ index: 0, fields: ['content'] }],
    },
  ],
  instanceModules: MODULES,
};
