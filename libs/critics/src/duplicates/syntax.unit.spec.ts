import { describe, expect, it } from '@jest/globals';
import { syntaxFacts } from './syntax.js';
import { tokenize } from './detect.js';

const SOURCE = `export interface Point { x: number; y: number }
export type Id = string | number;
export function area(w: number, h: number): number {
  return w * h;
}
export function pick(a: string): string;
export function pick(a: number): number;
export function pick(a: unknown): unknown {
  return a as unknown;
}
export class UserDto {
  @IsString() name!: string;
  @IsEmail() email!: string;
}
`;

describe('syntaxFacts', () => {
  const facts = syntaxFacts('src/a.ts', SOURCE);
  const typeText = facts.typeRanges.map((r) => SOURCE.slice(r.start, r.end).replace(/\s+/g, ' ').trim());

  it('marks interfaces, type aliases, annotations, overload signatures, assertions and typed-only fields as type-only', () => {
    expect(typeText).toEqual([
      'export interface Point { x: number; y: number }',
      'export type Id = string | number;',
      ': number',
      ': number',
      ': number',
      'export function pick(a: string): string;',
      'export function pick(a: number): number;',
      ': unknown',
      ': unknown',
      'as unknown',
      '@IsString() name!: string;',
      '@IsEmail() email!: string;',
    ]);
  });

  it('finds the function bodies', () => {
    expect(facts.bodies.map((b) => SOURCE.slice(b.start, b.end).replace(/\s+/g, ' '))).toEqual([
      '{ return w * h; }',
      '{ return a as unknown; }',
    ]);
  });

  it('lists the shapes that may repeat, with their own names left out of the hash', () => {
    expect(facts.shapes.map((s) => [s.kind, s.name, s.startLine, s.endLine])).toEqual([
      ['interface', 'Point', 1, 1],
      ['type', 'Id', 2, 2],
      ['overloads', 'pick', 6, 7],
      ['fields', 'UserDto', 11, 14],
    ]);
    const twins = syntaxFacts(
      'b.ts',
      'interface A { f(x: string): void }\ninterface B { f(x: string): void }\ninterface C { g(x: string): void }\n',
    ).shapes.filter((s) => s.kind === 'interface');
    expect(twins[0]?.hash).toBe(twins[1]?.hash);
    expect(twins[0]?.hash).not.toBe(twins[2]?.hash);
  });
});

describe('tokenize', () => {
  it('keeps only runtime code: the same function with and without types tokenises alike', () => {
    const typed = tokenize(
      'a.ts',
      'export function total(items: { price: number }[], rate: number): number {\n  return items.reduce((sum: number, i) => sum + i.price, 0) * (1 + rate);\n}\n',
    );
    const plain = tokenize(
      'b.js',
      'export function total(items, rate) {\n  return items.reduce((sum, i) => sum + i.price, 0) * (1 + rate);\n}\n',
    );
    expect(typed.kinds).toBe(plain.kinds);
  });

  it('tags each token with its innermost function body', () => {
    const stream = tokenize('a.ts', 'const f = () => { return g(() => 1); };\n');
    const bodies = [...stream.bodies].map((c) => c.charCodeAt(0) - 0x100);
    expect(new Set(bodies)).toEqual(new Set([0, 1, 2]));
  });
});
