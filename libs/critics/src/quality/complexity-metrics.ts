import ts from 'typescript';

// Cyclomatic and cognitive complexity per function, on the TypeScript compiler's syntax tree (no
// type checker, no other parser). Each function is measured on its own body: a function nested in
// it is measured (and reported) on its own, so a callback does not make its host look complex.
//
// Cyclomatic (McCabe; counted as ESLint's `complexity` rule counts, classic variant): 1 + each
// if, ?:, &&, ||, ??, &&=, ||=, ??=, for/for-in/for-of, while, do-while, catch, case with a test,
// default value (parameter or destructuring) and optional chain link (`?.`).
//
// Cognitive (G. Ann Campbell, "Cognitive Complexity", SonarSource 2017): +1 for each if, else if,
// else, ?:, switch, loop, catch, labelled break/continue, each sequence of like logical operators
// (&&, ||, ??) and each recursive call; if, ?:, switch, loops and catch add their nesting depth
// too; those structures (and else/else-if bodies) nest what is inside them.

/** One function's measures. */
export interface FunctionComplexity {
  readonly name: string;
  /** 1-based lines of the whole function (its signature to its closing brace). */
  readonly startLine: number;
  readonly endLine: number;
  readonly cyclomatic: number;
  readonly cognitive: number;
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration;

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** The name people know the function by: its own, the variable or property it is assigned to, or `<anonymous>`. */
function nameOf(node: FunctionNode, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return `${className(node) ?? 'class'}.constructor`;
  const own = node.name === undefined ? null : node.name.getText(source);
  const owner =
    ts.isMethodDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)
      ? className(node)
      : null;
  if (own !== null) return owner === null ? own : `${owner}.${own}`;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken)
    return parent.left.getText(source);
  if (ts.isExportAssignment(parent)) return 'default export';
  return '<anonymous>';
}

function className(node: ts.Node): string | null {
  const parent = node.parent;
  return (ts.isClassDeclaration(parent) || ts.isClassExpression(parent)) && parent.name !== undefined
    ? parent.name.text
    : null;
}

const LOGICAL = new Set([
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.QuestionQuestionToken,
]);
const LOGICAL_ASSIGNMENT = new Set([
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
]);

function isLoop(node: ts.Node): boolean {
  return (
    ts.isForStatement(node) ||
    ts.isForInStatement(node) ||
    ts.isForOfStatement(node) ||
    ts.isWhileStatement(node) ||
    ts.isDoStatement(node)
  );
}

/** McCabe's count for one function's own body. */
function cyclomatic(fn: FunctionNode): number {
  let count = 1;
  const visit = (node: ts.Node): void => {
    if (node !== fn && isFunction(node)) return;
    if (ts.isIfStatement(node) || ts.isConditionalExpression(node) || isLoop(node) || ts.isCatchClause(node))
      count += 1;
    else if (ts.isCaseClause(node)) count += 1;
    else if (
      ts.isBinaryExpression(node) &&
      (LOGICAL.has(node.operatorToken.kind) || LOGICAL_ASSIGNMENT.has(node.operatorToken.kind))
    )
      count += 1;
    else if ((ts.isParameter(node) || ts.isBindingElement(node)) && node.initializer !== undefined) count += 1;
    else if (
      (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node) || ts.isCallExpression(node)) &&
      node.questionDotToken !== undefined
    )
      count += 1;
    else if (ts.isShorthandPropertyAssignment(node) && node.objectAssignmentInitializer !== undefined) count += 1;
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(fn, visit);
  return count;
}

/** The operators of a chain of logical expressions, left to right (parentheses looked through). */
function logicalOperators(node: ts.Expression, into: ts.SyntaxKind[]): void {
  const inner = ts.isParenthesizedExpression(node) ? node.expression : node;
  if (ts.isBinaryExpression(inner) && LOGICAL.has(inner.operatorToken.kind)) {
    logicalOperators(inner.left, into);
    into.push(inner.operatorToken.kind);
    logicalOperators(inner.right, into);
  }
}

/** Campbell's count for one function's own body. */
function cognitive(fn: FunctionNode, name: string): number {
  let total = 0;
  const ownName = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name;
  const visit = (node: ts.Node, nesting: number): void => {
    if (node !== fn && isFunction(node)) return;
    if (ts.isIfStatement(node)) {
      const elseIf = ts.isIfStatement(node.parent) && node.parent.elseStatement === node;
      total += elseIf ? 1 : 1 + nesting;
      visit(node.expression, nesting);
      visit(node.thenStatement, nesting + 1);
      if (node.elseStatement !== undefined) {
        if (ts.isIfStatement(node.elseStatement)) visit(node.elseStatement, nesting);
        else {
          total += 1;
          visit(node.elseStatement, nesting + 1);
        }
      }
      return;
    }
    if (ts.isConditionalExpression(node) || ts.isSwitchStatement(node) || isLoop(node) || ts.isCatchClause(node)) {
      total += 1 + nesting;
      ts.forEachChild(node, (child) => visit(child, nesting + 1));
      return;
    }
    if ((ts.isBreakStatement(node) || ts.isContinueStatement(node)) && node.label !== undefined) total += 1;
    if (ts.isBinaryExpression(node) && LOGICAL.has(node.operatorToken.kind)) {
      // Only the top of a chain counts its sequences; its operands are visited for what they hold.
      const parent = ts.isParenthesizedExpression(node.parent) ? node.parent.parent : node.parent;
      const top = !(ts.isBinaryExpression(parent) && LOGICAL.has(parent.operatorToken.kind));
      if (top) {
        const ops: ts.SyntaxKind[] = [];
        logicalOperators(node, ops);
        total += ops.filter((op, i) => i === 0 || op !== ops[i - 1]).length;
      }
    }
    if (ts.isCallExpression(node) && ownName !== '<anonymous>') {
      const callee = node.expression;
      const called = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee) && callee.expression.kind === ts.SyntaxKind.ThisKeyword
          ? callee.name.text
          : null;
      if (called === ownName) total += 1;
    }
    ts.forEachChild(node, (child) => visit(child, nesting));
  };
  ts.forEachChild(fn, (child) => visit(child, 0));
  return total;
}

/** Script kind from a file name (TSX/JSX parse differently). */
export function scriptKindOf(file: string): ts.ScriptKind {
  if (/\.tsx$/.test(file)) return ts.ScriptKind.TSX;
  if (/\.jsx$/.test(file)) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/.test(file)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

/** Every function of a file with its measures, in source order. */
export function measureFunctions(file: string, text: string): FunctionComplexity[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKindOf(file));
  const found: FunctionComplexity[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body !== undefined) {
      const name = nameOf(node, source);
      found.push({
        name,
        startLine: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
        endLine: source.getLineAndCharacterOfPosition(node.getEnd()).line + 1,
        cyclomatic: cyclomatic(node),
        cognitive: cognitive(node, name),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
