import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import type { AutofixKind } from '@rloop/contracts';
import type { CheckoutBoundary } from '../repo/checkout.js';
import { createSharedHost, isProgramFile, tsGroups } from '../ts/projects.js';
import { type CodemodId, deprecatedCall, type Edit, NO_REWRITE, rewriteOf } from './rewrites.js';

/** A rewrite applied to a file: which codemod, at which line (of the file as it stood when rewritten). */
export interface AppliedRewrite {
  readonly codemod: CodemodId;
  readonly line: number;
  readonly note: string;
}

/** A deprecated call no codemod may rewrite, and why. */
export interface SkippedRewrite {
  readonly line: number;
  readonly name: string;
  readonly note: string;
}

/** What the codemods did to one file. */
export interface CodemodResult {
  /** Repo-relative path. */
  readonly file: string;
  readonly before: string;
  readonly after: string;
  readonly applied: readonly AppliedRewrite[];
  readonly skipped: readonly SkippedRewrite[];
}

/** Whether a finding has a deterministic fix, which, or why not (what the critic puts on a finding). */
export interface AutofixVerdict {
  readonly autofix: AutofixKind;
  readonly note: string;
}

/** The node of a source file whose name token starts at `position`: the identifier a linter reported. */
function identifierAt(sourceFile: ts.SourceFile, position: number): ts.Identifier | null {
  let found: ts.Identifier | null = null;
  const visit = (node: ts.Node): void => {
    if (found !== null || position < node.getFullStart() || position >= node.getEnd()) return;
    if (ts.isIdentifier(node) && node.getStart(sourceFile) === position) {
      found = node;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

/** The call or `new` whose callee name is this identifier. */
function callNamed(identifier: ts.Identifier): ts.CallExpression | ts.NewExpression | null {
  const parent = identifier.parent;
  const callee = ts.isPropertyAccessExpression(parent) && parent.name === identifier ? parent : identifier;
  const call = callee.parent;
  return (ts.isCallExpression(call) || ts.isNewExpression(call)) && call.expression === callee ? call : null;
}

/**
 * Whether the deprecated use a linter reported at (line, column) — 1-based, as ESLint reports them —
 * has a codemod, or why not. Used by the compiler-linter critic on the program it already built.
 */
export function classifyDeprecationAt(
  program: ts.Program,
  sourceFile: ts.SourceFile,
  line: number,
  column: number,
  name: string,
): AutofixVerdict {
  const noRewrite = (what: string): AutofixVerdict => ({
    autofix: 'none',
    note: NO_REWRITE[what] ?? `no codemod rewrites ${what}: its replacement needs judgement`,
  });
  if (line < 1 || line > sourceFile.getLineStarts().length) return noRewrite(name);
  const identifier = identifierAt(
    sourceFile,
    sourceFile.getPositionOfLineAndCharacter(line - 1, Math.max(0, column - 1)),
  );
  // A binding of a deprecated module (`const p = require('punycode')`) is reported under the binding's name.
  const module = identifier === null ? null : moduleBoundTo(identifier, program.getTypeChecker());
  const fallback = noRewrite(module ?? name);
  const call = identifier === null ? null : callNamed(identifier);
  const deprecated = call === null ? null : deprecatedCall(call, program.getTypeChecker(), sourceFile);
  if (deprecated === null) return fallback;
  const rewrite = rewriteOf(deprecated);
  return rewrite.kind === 'codemod'
    ? { autofix: 'codemod', note: `codemod ${rewrite.codemod}: ${rewrite.note}` }
    : { autofix: 'none', note: rewrite.note };
}

/** The module an identifier is bound to by `require('m')` or `import … from 'm'` (without `node:`), if it is. */
function moduleBoundTo(identifier: ts.Identifier, checker: ts.TypeChecker): string | null {
  const symbol = ts.isShorthandPropertyAssignment(identifier.parent)
    ? checker.getShorthandAssignmentValueSymbol(identifier.parent)
    : checker.getSymbolAtLocation(identifier);
  for (const declaration of symbol?.declarations ?? []) {
    const specifier = ts.isVariableDeclaration(declaration)
      ? moduleOf(declaration.initializer)
      : ts.isImportClause(declaration) || ts.isNamespaceImport(declaration)
        ? moduleOf((ts.isImportClause(declaration) ? declaration.parent : declaration.parent.parent).moduleSpecifier)
        : null;
    if (specifier !== null) return specifier.replace(/^node:/, '');
  }
  return null;
}

interface PlannedRewrite {
  readonly edits: readonly Edit[];
  readonly applied: AppliedRewrite;
  readonly touched: readonly string[];
}

/** Every deprecated call of a file: the rewrites to apply and the ones that have none. */
function planFile(
  program: ts.Program,
  sourceFile: ts.SourceFile,
): { rewrites: PlannedRewrite[]; skipped: SkippedRewrite[] } {
  const checker = program.getTypeChecker();
  const rewrites: PlannedRewrite[] = [];
  const skipped: SkippedRewrite[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const deprecated = deprecatedCall(node, checker, sourceFile);
      if (deprecated !== null) {
        const line = sourceFile.getLineAndCharacterOfPosition(deprecated.name.getStart(sourceFile)).line + 1;
        const rewrite = rewriteOf(deprecated);
        if (rewrite.kind === 'codemod')
          rewrites.push({
            edits: rewrite.edits,
            applied: { codemod: rewrite.codemod, line, note: rewrite.note },
            touched: rewrite.touched,
          });
        else skipped.push({ line, name: deprecated.name.text, note: rewrite.note });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return { rewrites, skipped };
}

/** Applies edits that do not overlap, the innermost first; returns the new text and which planned rewrites went in. */
function applyEdits(text: string, planned: readonly PlannedRewrite[]): { text: string; taken: PlannedRewrite[] } {
  // An inner call's rewrite (util.isArray inside util.isBoolean) goes first; the outer one waits for the next pass.
  const bySize = [...planned].sort((a, b) => span(a) - span(b));
  const taken: PlannedRewrite[] = [];
  const ranges: [number, number][] = [];
  for (const rewrite of bySize) {
    const overlaps = rewrite.edits.some((e) => ranges.some(([s, t]) => e.start < t && s < e.end));
    if (overlaps) continue;
    taken.push(rewrite);
    for (const e of rewrite.edits) ranges.push([e.start, e.end]);
  }
  const edits = taken.flatMap((r) => r.edits).sort((a, b) => b.start - a.start);
  let out = text;
  for (const e of edits) out = `${out.slice(0, e.start)}${e.text}${out.slice(e.end)}`;
  return { text: out, taken };
}

function span(rewrite: PlannedRewrite): number {
  return Math.max(...rewrite.edits.map((e) => e.end)) - Math.min(...rewrite.edits.map((e) => e.start));
}

const CORE_MODULES = new Set(['util', 'node:util', 'url', 'node:url']);

function moduleOf(node: ts.Expression | undefined): string | null {
  if (node === undefined) return null;
  if (ts.isStringLiteral(node)) return node.text;
  if (
    ts.isCallExpression(node) &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'require' &&
    node.arguments.length === 1
  ) {
    const arg = node.arguments[0];
    return arg !== undefined && ts.isStringLiteral(arg) ? arg.text : null;
  }
  return null;
}

/** Whether an identifier is a property's name (`x.isArray`, `{ isArray: 1 }`), which never refers to a binding. */
function isPropertyName(node: ts.Identifier): boolean {
  const parent = node.parent;
  return (
    ((ts.isPropertyAccessExpression(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isPropertySignature(parent)) &&
      parent.name === node) ||
    (ts.isQualifiedName(parent) && parent.right === node)
  );
}

/** How many identifiers named `name` a file holds besides `except` and property names (a count of its references that never undercounts). */
function mentions(sourceFile: ts.SourceFile, name: string, except: ts.Node): number {
  let count = 0;
  const visit = (node: ts.Node): void => {
    if (node !== except && ts.isIdentifier(node) && node.text === name && !isPropertyName(node)) count += 1;
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return count;
}

/** The range of a statement with the line it stands on, so removing it leaves no blank line. */
function statementRange(sourceFile: ts.SourceFile, statement: ts.Statement): Edit {
  const start = statement.getStart(sourceFile);
  let end = statement.getEnd();
  if (sourceFile.text[end] === '\n') end += 1;
  const lineStart = sourceFile.getLineStarts()[sourceFile.getLineAndCharacterOfPosition(start).line] ?? start;
  return { start: sourceFile.text.slice(lineStart, start).trim() === '' ? lineStart : start, end, text: '' };
}

/** The braces of a named import or a destructuring, rewritten with only the elements kept. */
function keepOnly(
  sourceFile: ts.SourceFile,
  braces: ts.NamedImports | ts.ObjectBindingPattern,
  kept: readonly ts.Node[],
): Edit {
  return {
    start: braces.getStart(sourceFile),
    end: braces.getEnd(),
    text: `{ ${kept.map((k) => k.getText(sourceFile)).join(', ')} }`,
  };
}

/**
 * Removes imports of `util` and `url` (ES imports and `require`) a rewrite left unused — the
 * namespace (`util` in `util.isArray`) or a binding imported alone (`isArray`) — so the fix does
 * not trade a deprecation for an unused variable. A binding whose name still appears anywhere in
 * the file is kept (the count is by name, so it never removes one still in use).
 */
export function removeUnusedModuleBindings(fileName: string, text: string, names: ReadonlySet<string>): string {
  if (names.size === 0) return text;
  const sourceFile = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const edits: Edit[] = [];
  const unused = (binding: ts.Identifier): boolean =>
    names.has(binding.text) && mentions(sourceFile, binding.text, binding) === 0;
  for (const statement of sourceFile.statements) {
    if (ts.isImportDeclaration(statement) && CORE_MODULES.has(moduleOf(statement.moduleSpecifier) ?? '')) {
      const clause = statement.importClause;
      if (clause === undefined || clause.phaseModifier === ts.SyntaxKind.TypeKeyword) continue;
      const bindings = clause.namedBindings;
      if (clause.name !== undefined) {
        if (bindings === undefined && unused(clause.name)) edits.push(statementRange(sourceFile, statement));
        continue;
      }
      if (bindings !== undefined && ts.isNamespaceImport(bindings) && unused(bindings.name))
        edits.push(statementRange(sourceFile, statement));
      if (bindings !== undefined && ts.isNamedImports(bindings)) {
        const kept = bindings.elements.filter((e) => !unused(e.name));
        if (kept.length === 0) edits.push(statementRange(sourceFile, statement));
        else if (kept.length < bindings.elements.length) edits.push(keepOnly(sourceFile, bindings, kept));
      }
    }
    if (ts.isVariableStatement(statement) && statement.declarationList.declarations.length === 1) {
      const declaration = statement.declarationList.declarations[0];
      if (declaration === undefined || !CORE_MODULES.has(moduleOf(declaration.initializer) ?? '')) continue;
      if (ts.isIdentifier(declaration.name) && unused(declaration.name))
        edits.push(statementRange(sourceFile, statement));
      if (ts.isObjectBindingPattern(declaration.name)) {
        const pattern = declaration.name;
        const kept = pattern.elements.filter(
          (e) =>
            !(
              ts.isIdentifier(e.name) &&
              e.propertyName === undefined &&
              e.dotDotDotToken === undefined &&
              unused(e.name)
            ),
        );
        if (kept.length === 0) edits.push(statementRange(sourceFile, statement));
        else if (kept.length < pattern.elements.length) edits.push(keepOnly(sourceFile, pattern, kept));
      }
    }
  }
  let out = text;
  for (const e of edits.sort((a, b) => b.start - a.start)) out = `${out.slice(0, e.start)}${e.text}${out.slice(e.end)}`;
  return out;
}

// Nested deprecated calls take one pass each; three covers util.isX(util.isY(…)) and more.
const MAX_PASSES = 3;

function toRepo(root: string, abs: string): string {
  return relative(root, abs).split(sep).join('/');
}

/**
 * Runs every codemod over the given files of a checkout: TypeScript programs built as the
 * compiler-linter critic builds them (the repository's tsconfig, @types from its node_modules or
 * the workspace, nothing read through a link out of the checkout), every deprecated call with a
 * safe rewrite rewritten, the ones without one listed with why. Nothing is written: the caller
 * writes `after` where it differs. Pure apart from reading the checkout.
 */
export function runCodemods(
  boundary: CheckoutBoundary,
  files: readonly string[],
  note: (message: string) => void = () => undefined,
): CodemodResult[] {
  const root = boundary.root;
  const wanted = [...new Set(files)].filter((f) => isProgramFile(f) && boundary.locate(f).ok).sort();
  const results: CodemodResult[] = [];
  for (const group of tsGroups(boundary, wanted, note)) {
    const overlay = new Map<string, string>();
    const applied = new Map<string, AppliedRewrite[]>();
    const skipped = new Map<string, SkippedRewrite[]>();
    const before = new Map<string, string>();
    for (let pass = 0; pass < MAX_PASSES; pass += 1) {
      const host = createSharedHost(group.options, boundary);
      const read = host.getSourceFile.bind(host);
      host.getSourceFile = (fileName, version, onError, create) => {
        const changed = overlay.get(fileName);
        return changed === undefined
          ? read(fileName, version, onError, create)
          : ts.createSourceFile(fileName, changed, version, true);
      };
      const program = ts.createProgram({
        rootNames: group.reviewed.map((f) => join(root, f)),
        options: group.options,
        host,
      });
      let changedThisPass = false;
      for (const file of group.reviewed) {
        const abs = join(root, file);
        const sourceFile = program.getSourceFile(abs);
        if (sourceFile === undefined) continue;
        if (!before.has(file)) before.set(file, sourceFile.text);
        const plan = planFile(program, sourceFile);
        if (pass === 0) skipped.set(file, plan.skipped);
        if (plan.rewrites.length === 0) continue;
        const { text, taken } = applyEdits(sourceFile.text, plan.rewrites);
        const cleaned = removeUnusedModuleBindings(abs, text, new Set(taken.flatMap((t) => t.touched)));
        overlay.set(abs, cleaned);
        applied.set(file, [...(applied.get(file) ?? []), ...taken.map((t) => t.applied)]);
        changedThisPass = true;
      }
      if (!changedThisPass) break;
    }
    for (const file of group.reviewed) {
      const original = before.get(file);
      if (original === undefined) continue;
      results.push({
        file: toRepo(root, join(root, file)),
        before: original,
        after: overlay.get(join(root, file)) ?? original,
        applied: applied.get(file) ?? [],
        skipped: skipped.get(file) ?? [],
      });
    }
  }
  return results.sort((a, b) => a.file.localeCompare(b.file));
}
