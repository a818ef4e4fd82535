import { posix } from 'node:path';
import ts from 'typescript';

/** How a local name was imported. `name` is `*` for a namespace and `default` for a default import. */
export interface ImportBinding {
  readonly spec: string;
  readonly name: string;
}

export type ExportTarget = { readonly local: string } | { readonly spec: string; readonly name: string };

/** One parsed file of the repository and what it imports, declares and exports. */
export interface Unit {
  readonly path: string;
  readonly sf: ts.SourceFile;
  readonly imports: ReadonlyMap<string, ImportBinding>;
  /** Top-level function and class declarations (hoisted). */
  readonly decls: ReadonlyMap<string, ts.FunctionDeclaration | ts.ClassDeclaration>;
  readonly exports: ReadonlyMap<string, ExportTarget>;
  readonly starExports: readonly string[];
}

export const CODE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'] as const;

export function isCodeFile(path: string): boolean {
  return (
    CODE_EXTENSIONS.some((ext) => path.endsWith(ext)) &&
    !path.endsWith('.d.ts') &&
    !path.endsWith('.d.mts') &&
    !path.endsWith('.d.cts')
  );
}

function scriptKind(path: string): ts.ScriptKind {
  if (path.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (path.endsWith('.jsx')) return ts.ScriptKind.JSX;
  if (path.endsWith('.js') || path.endsWith('.mjs') || path.endsWith('.cjs')) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

/** Parses a file without a type checker (syntax only: fast, and works without node_modules). */
export function parseSource(path: string, text: string): ts.SourceFile {
  return ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, scriptKind(path));
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);
}

/** `require('x')` (possibly awaited or wrapped in parentheses) → 'x'. */
export function requireSpec(node: ts.Expression | undefined): string | null {
  if (node === undefined) return null;
  let expr: ts.Expression = node;
  while (ts.isParenthesizedExpression(expr) || ts.isAwaitExpression(expr)) expr = expr.expression;
  if (
    ts.isCallExpression(expr) &&
    ts.isIdentifier(expr.expression) &&
    expr.expression.text === 'require' &&
    expr.arguments.length === 1
  ) {
    const arg = expr.arguments[0];
    if (arg !== undefined && ts.isStringLiteralLike(arg)) return arg.text;
  }
  return null;
}

/** Builds a Unit: imports (ESM and CommonJS requires), hoisted declarations and exports. */
export function buildUnit(path: string, sf: ts.SourceFile): Unit {
  const imports = new Map<string, ImportBinding>();
  const decls = new Map<string, ts.FunctionDeclaration | ts.ClassDeclaration>();
  const exports = new Map<string, ExportTarget>();
  const starExports: string[] = [];

  for (const statement of sf.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const spec = statement.moduleSpecifier.text;
      const clause = statement.importClause;
      if (clause?.name) imports.set(clause.name.text, { spec, name: 'default' });
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) imports.set(bindings.name.text, { spec, name: '*' });
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements)
          imports.set(element.name.text, { spec, name: (element.propertyName ?? element.name).text });
      }
    } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) {
      const ref = statement.moduleReference.expression;
      if (ts.isStringLiteral(ref)) imports.set(statement.name.text, { spec: ref.text, name: '*' });
    } else if (ts.isVariableStatement(statement)) {
      const exported = hasModifier(statement, ts.SyntaxKind.ExportKeyword);
      for (const declaration of statement.declarationList.declarations) {
        const spec = requireSpec(declaration.initializer);
        if (spec !== null) {
          if (ts.isIdentifier(declaration.name)) imports.set(declaration.name.text, { spec, name: '*' });
          else if (ts.isObjectBindingPattern(declaration.name)) {
            for (const element of declaration.name.elements) {
              if (!ts.isIdentifier(element.name)) continue;
              const imported =
                element.propertyName && ts.isIdentifier(element.propertyName)
                  ? element.propertyName.text
                  : element.name.text;
              imports.set(element.name.text, { spec, name: imported });
            }
          }
        }
        if (exported && ts.isIdentifier(declaration.name))
          exports.set(declaration.name.text, { local: declaration.name.text });
      }
    } else if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) {
      const name =
        statement.name?.text ?? (hasModifier(statement, ts.SyntaxKind.DefaultKeyword) ? '__default' : undefined);
      if (name !== undefined) {
        decls.set(name, statement);
        if (hasModifier(statement, ts.SyntaxKind.ExportKeyword)) {
          exports.set(hasModifier(statement, ts.SyntaxKind.DefaultKeyword) ? 'default' : name, { local: name });
        }
      }
    } else if (ts.isExportDeclaration(statement)) {
      const spec =
        statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
          ? statement.moduleSpecifier.text
          : null;
      const clause = statement.exportClause;
      if (clause === undefined) {
        if (spec !== null) starExports.push(spec);
      } else if (ts.isNamedExports(clause)) {
        for (const element of clause.elements) {
          const local = (element.propertyName ?? element.name).text;
          exports.set(element.name.text, spec === null ? { local } : { spec, name: local });
        }
      } else if (spec !== null) {
        exports.set(clause.name.text, { spec, name: '*' });
      }
    } else if (ts.isExportAssignment(statement)) {
      exports.set('default', { local: '__default' });
    }
  }
  return { path, sf, imports, decls, exports, starExports };
}

const ALIAS_ROOTS: readonly (readonly [string, readonly string[]])[] = [
  ['@/', ['src/', '']],
  ['~/', ['src/', '']],
  ['src/', ['src/']],
];

/**
 * Resolves an import specifier to a repository file: relative paths (with the TypeScript habit of
 * writing `.js` for a `.ts` file), index files, and the common `@/` and `~/` aliases for src/.
 * Returns null for packages and anything not in the repository.
 */
export function resolveSpecifier(fromFile: string, spec: string, exists: (path: string) => boolean): string | null {
  let bases: string[];
  if (spec.startsWith('./') || spec.startsWith('../')) {
    bases = [posix.normalize(posix.join(posix.dirname(fromFile), spec))];
  } else {
    const alias = ALIAS_ROOTS.find(([prefix]) => spec.startsWith(prefix));
    if (alias === undefined) return null;
    bases = alias[1].map((root) => posix.normalize(root + spec.slice(alias[0].length)));
  }
  for (const base of bases) {
    if (base.startsWith('..')) continue;
    const stem = base.replace(/\.(m|c)?jsx?$/, '');
    const candidates = [
      base,
      ...CODE_EXTENSIONS.map((ext) => stem + ext),
      ...CODE_EXTENSIONS.map((ext) => `${base}/index${ext}`),
    ];
    const found = candidates.find((candidate) => isCodeFile(candidate) && exists(candidate));
    if (found !== undefined) return found;
  }
  return null;
}

/** Module names as the rules know them: `node:fs` → `fs`, `fs/promises` → `fs`. */
export function normaliseModule(spec: string): string {
  const bare = spec.startsWith('node:') ? spec.slice(5) : spec;
  if (bare === 'fs/promises') return 'fs';
  if (bare === 'child_process' || bare === 'cross-spawn') return 'child_process';
  if (bare === 'path/posix' || bare === 'path/win32' || bare === 'upath' || bare === 'pathe') return 'path';
  return bare;
}

/** Module-specifier strings of a file found by a quick scan (imports, re-exports, requires). */
export function scanSpecifiers(text: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /\bfrom\s*['"]([^'"\n]+)['"]/g,
    /\bimport\s*\(?\s*['"]([^'"\n]+)['"]/g,
    /\brequire\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns)
    for (const match of text.matchAll(pattern)) if (match[1] !== undefined) found.add(match[1]);
  return [...found];
}
