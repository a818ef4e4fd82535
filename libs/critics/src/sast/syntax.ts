import ts from 'typescript';
import type { Unit } from './project.js';

// Syntax helpers of the taint engine: reading access paths, literals, decorators, types and
// exports off the TypeScript AST (no type checker).

export function skip(node: ts.Expression): ts.Expression {
  let expr = node;
  for (;;) {
    if (
      ts.isParenthesizedExpression(expr) ||
      ts.isAsExpression(expr) ||
      ts.isNonNullExpression(expr) ||
      ts.isTypeAssertionExpression(expr) ||
      ts.isSatisfiesExpression(expr)
    ) {
      expr = expr.expression;
    } else {
      return expr;
    }
  }
}

/** `a.b.c`, `this.x`, `a['b']` → its text; null for anything that is not a plain access path. */
export function pathText(node: ts.Expression): string | null {
  const expr = skip(node);
  if (ts.isIdentifier(expr)) return expr.text;
  if (expr.kind === ts.SyntaxKind.ThisKeyword) return 'this';
  if (ts.isPropertyAccessExpression(expr) && ts.isIdentifier(expr.name)) {
    const base = pathText(expr.expression);
    return base === null ? null : `${base}.${expr.name.text}`;
  }
  if (
    ts.isElementAccessExpression(expr) &&
    (ts.isStringLiteralLike(expr.argumentExpression) || ts.isNumericLiteral(expr.argumentExpression))
  ) {
    const base = pathText(expr.expression);
    return base === null ? null : `${base}.${expr.argumentExpression.text}`;
  }
  return null;
}

export function rootOf(node: ts.Expression): string {
  let expr = skip(node);
  for (;;) {
    if (ts.isPropertyAccessExpression(expr) || ts.isElementAccessExpression(expr) || ts.isCallExpression(expr)) {
      if (ts.isPropertyAccessExpression(expr) && expr.expression.kind === ts.SyntaxKind.ThisKeyword)
        return `this.${expr.name.text}`;
      expr = skip(expr.expression);
    } else {
      break;
    }
  }
  if (ts.isIdentifier(expr)) return expr.text;
  return expr.kind === ts.SyntaxKind.ThisKeyword ? 'this' : '';
}

export function literalText(node: ts.Node | undefined): string | null {
  if (node === undefined) return null;
  if (ts.isStringLiteralLike(node) || ts.isNumericLiteral(node)) return node.text;
  return null;
}

export function isStringish(node: ts.Node | undefined): boolean {
  return (
    node !== undefined &&
    (ts.isStringLiteralLike(node) ||
      ts.isTemplateExpression(node) ||
      ts.isRegularExpressionLiteral(node) ||
      ts.isArrayLiteralExpression(node))
  );
}

export function isFunctionNode(node: ts.Node): node is ts.ArrowFunction | ts.FunctionExpression {
  return ts.isArrowFunction(node) || ts.isFunctionExpression(node);
}

export function propName(name: ts.PropertyName | ts.BindingName | undefined): string | null {
  if (name === undefined) return null;
  if (
    ts.isIdentifier(name) ||
    ts.isStringLiteralLike(name) ||
    ts.isNumericLiteral(name) ||
    ts.isPrivateIdentifier(name)
  )
    return name.text;
  return null;
}

export function decoratorsOf(node: ts.Node): readonly ts.Decorator[] {
  return ts.canHaveDecorators(node) ? (ts.getDecorators(node) ?? []) : [];
}

export function decoratorName(decorator: ts.Decorator): { name: string; args: readonly ts.Expression[] } | null {
  const expr = decorator.expression;
  if (ts.isCallExpression(expr) && ts.isIdentifier(expr.expression))
    return { name: expr.expression.text, args: expr.arguments };
  if (ts.isIdentifier(expr)) return { name: expr.text, args: [] };
  return null;
}

export function typeName(type: ts.TypeNode | undefined): string | null {
  if (type === undefined) return null;
  if (ts.isTypeReferenceNode(type))
    return ts.isIdentifier(type.typeName) ? type.typeName.text : type.typeName.right.text;
  return null;
}

export function containsHtml(text: string): boolean {
  return /<\s*[a-zA-Z!/]/.test(text);
}

export function isLiteralish(node: ts.Expression): boolean {
  const expr = skip(node);
  return ts.isStringLiteralLike(expr) || ts.isNumericLiteral(expr);
}

export function contentTypeInChain(node: ts.Expression, sf: ts.SourceFile): 'html' | 'text' | null {
  let expr = skip(node);
  while (ts.isPropertyAccessExpression(expr) || ts.isCallExpression(expr)) {
    if (ts.isCallExpression(expr) && ts.isPropertyAccessExpression(expr.expression)) {
      const method = expr.expression.name.text;
      const args = expr.arguments.map((a) => a.getText(sf)).join(',');
      if (
        method === 'type' ||
        method === 'contentType' ||
        (['set', 'header', 'setHeader'].includes(method) && /content-type/i.test(args))
      ) {
        return /html/i.test(args) ? 'html' : 'text';
      }
    }
    expr = skip(expr.expression);
  }
  return null;
}

export function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);
}

/** Every function-like node with a body in a file. */
export function functionsIn(sf: ts.SourceFile): (ts.SignatureDeclaration & { body?: ts.Node })[] {
  const out: (ts.SignatureDeclaration & { body?: ts.Node })[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node) ||
        ts.isConstructorDeclaration(node) ||
        ts.isGetAccessorDeclaration(node) ||
        ts.isSetAccessorDeclaration(node)) &&
      node.body !== undefined
    ) {
      out.push(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The second parameter of a GraphQL resolver (`Query: { user: (parent, args) => … }`): client arguments. */
export function isResolverArgs(param: ts.ParameterDeclaration, owners: readonly RegExp[]): boolean {
  const fn = param.parent;
  if (fn.parameters.indexOf(param) !== 1) return false;
  const holder = ts.isMethodDeclaration(fn) ? fn : fn.parent;
  if (holder === undefined || !(ts.isPropertyAssignment(holder) || ts.isMethodDeclaration(holder))) return false;
  const object = holder.parent;
  if (!ts.isObjectLiteralExpression(object)) return false;
  const owner = object.parent;
  return (
    (ts.isPropertyAssignment(owner) || ts.isVariableDeclaration(owner)) &&
    owners.some((re) => re.test(owner.name.getText()))
  );
}

/**
 * The name under which a function is exported from its file, or null: `export function f`,
 * `export const f = () => …`, `export default …`, `export { f }`, `module.exports = …`,
 * `exports.f = …`, and public methods of an exported class (`Class.method`).
 */
export function exportedName(fn: ts.SignatureDeclaration, unit: Unit): string | null {
  const exportedLocals = new Set(
    [...unit.exports.values()].flatMap((target) => ('local' in target ? [target.local] : [])),
  );
  if (ts.isFunctionDeclaration(fn)) {
    if (fn.parent !== unit.sf) return null;
    const name = fn.name?.text ?? '__default';
    if (hasModifier(fn, ts.SyntaxKind.ExportKeyword))
      return hasModifier(fn, ts.SyntaxKind.DefaultKeyword) ? 'default' : name;
    return exportedLocals.has(name) ? name : null;
  }
  if (ts.isMethodDeclaration(fn) || ts.isConstructorDeclaration(fn)) {
    const cls = fn.parent;
    if (!ts.isClassDeclaration(cls) || cls.parent !== unit.sf) return null;
    const exported =
      hasModifier(cls, ts.SyntaxKind.ExportKeyword) || (cls.name !== undefined && exportedLocals.has(cls.name.text));
    const hidden =
      hasModifier(fn, ts.SyntaxKind.PrivateKeyword) ||
      hasModifier(fn, ts.SyntaxKind.ProtectedKeyword) ||
      (fn.name !== undefined && ts.isPrivateIdentifier(fn.name));
    if (!exported || hidden) return null;
    return `${cls.name?.text ?? 'default'}.${ts.isConstructorDeclaration(fn) ? 'constructor' : (fn.name?.getText(unit.sf) ?? '')}`;
  }
  if (!ts.isArrowFunction(fn) && !ts.isFunctionExpression(fn)) return null;
  let holder: ts.Node = fn.parent;
  while (ts.isParenthesizedExpression(holder) || ts.isAsExpression(holder) || ts.isSatisfiesExpression(holder))
    holder = holder.parent;
  if (ts.isExportAssignment(holder)) return 'default';
  if (ts.isVariableDeclaration(holder) && ts.isIdentifier(holder.name)) {
    const statement = holder.parent.parent;
    if (!ts.isVariableStatement(statement) || statement.parent !== unit.sf) return null;
    return hasModifier(statement, ts.SyntaxKind.ExportKeyword) || exportedLocals.has(holder.name.text)
      ? holder.name.text
      : null;
  }
  if (
    ts.isBinaryExpression(holder) &&
    holder.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
    skip(holder.right) === fn
  ) {
    const target = pathText(holder.left);
    if (target === 'module.exports') return 'default';
    if (target !== null && /^(module\.)?exports\.[^.]+$/.test(target)) return target.split('.').pop() ?? null;
  }
  return null;
}

/**
 * Whether a function searches one of its parameters for a text (`url.includes(allowed)`,
 * `url.indexOf(host) !== -1`): an allowlist written that way accepts `https://evil.net/?allowed`,
 * so the function is no check, whatever its name says. Searches for `..` or a separator (path
 * traversal checks) are checks and do not count.
 */
export function searchesParameter(
  fn: ts.SignatureDeclaration & { readonly body?: ts.Node | undefined },
  params: readonly (string | null)[],
): boolean {
  const names = new Set(params.filter((p): p is string => p !== null));
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['includes', 'indexOf', 'search'].includes(node.expression.name.text)
    ) {
      const needle = literalText(node.arguments[0] === undefined ? undefined : skip(node.arguments[0]));
      if (
        names.has(rootOf(node.expression.expression)) &&
        (needle === null || !['..', '../', '/', '\\', '..\\'].includes(needle))
      )
        found = true;
    }
    ts.forEachChild(node, visit);
  };
  if (fn.body !== undefined) visit(fn.body);
  return found;
}

export function patternOf(regexLiteral: string): string {
  return regexLiteral.slice(1, regexLiteral.lastIndexOf('/'));
}
