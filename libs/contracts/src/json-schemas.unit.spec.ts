import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, it, expect } from '@jest/globals';
import { jsonSchemaDocuments } from './json-schema.js';

describe('probe', () => {
  it('works', () => {
    expect(typeof readFileSync).toBe('function');
    expect(fc.sample(fc.stringMatching(/^[a-z0-9]+(?:-[a-z0-9]+)*$/), 3).length).toBe(3);
    expect(Object.keys(jsonSchemaDocuments()).length).toBeGreaterThan(0);
  });
});
