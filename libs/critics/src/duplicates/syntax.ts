import ts from 'typescript';

// What the duplicate detector needs from the syntax tree, beside the tokens: which text is
// type-only (it does not count toward a clone), which function body each token belongs to (a
// clone with renamed identifiers needs a body of statements), and the declarations whose shape a
// language forces on repeated code (overload lists, interfaces, DTO classes), hashed so that
// repetitions can be reported once per family.

/** A range of the text, [start, end). */
export interface TextRange {
  readonly start: number;
  readonly end: number;
}

/** A function body: its range and an id (1-based, in source order). */
export interface BodyRange extends TextRange {
  readonly id: number;
}

/** A type-only declaration whose shape may repeat: an interface, a type alias, an overload list, a class of fields only. */
export interface ShapeUnit {
  readonly startLine: number;
  readonly endLine: number;
  /** The kind of declaration, for the finding's words. */
  readonly kind: 'interface' | 'type' | 'overloads' | 'fields' | 'signature';
  /** Its name (`UserDto`, `min`). */
  readonly name: string;
  /** A hash of its tokens with its own name left out (so `min` and `max` with one shape meet). */
  readonly hash: string;
  readonly tokens: number;
}

export interface SyntaxFacts {
  /** Type-only text, sorted and merged. */
  readonly typeRanges: readonly TextRange[];
  /** Function bodies, sorted by start. */
  readonly bodies: readonly BodyRange[];
  readonly shapes: readonly ShapeUnit[];
}

function scriptKind(file: string): ts.ScriptKind {
  if (file.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (file.endsWith('.jsx')) return ts.ScriptKind.JSX;
  return /\.(m|c)?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);
}

function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node)
  );
}

/** A hash of a declaration's tokens, its own name (the first identifier) left out. */
function shapeHash(
  text: string,
  start: number,
  end: number,
  languageVariant: ts.LanguageVariant,
): { hash: string; tokens: number } {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, languageVariant, text, undefined, start, end - start);
  let hash = 5381;
  let tokens = 0;
  let named = false;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const value =
      kind === ts.SyntaxKind.Identifier && !named
        ? ((named = true), '#name')
        : kind === ts.SyntaxKind.Identifier ||
            (kind >= ts.SyntaxKind.FirstLiteralToken && kind <= ts.SyntaxKind.LastLiteralToken)
          ? scanner.getTokenValue()
          : String(kind);
    for (let i = 0; i < value.length; i += 1) hash = ((hash * 33) ^ value.charCodeAt(i)) >>> 0;
    hash = ((hash * 33) ^ 0x1f) >>> 0;
    tokens += 1;
  }
  return { hash: hash.toString(36), tokens };
}

/** Parses a file for the detector (no type checker; tolerant of syntax errors). */
export function syntaxFacts(file: string, text: string): SyntaxFacts {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, scriptKind(file));
  const variant = /\.(tsx|jsx)$/.test(file) ? ts.LanguageVariant.JSX : ts.LanguageVariant.Standard;
  const ranges: TextRange[] = [];
  const bodies: BodyRange[] = [];
  const shapes: ShapeUnit[] = [];
  const lineOf = (pos: number): number => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const typeOnly = (start: number, end: number): void => {
    if (end > start) ranges.push({ start, end });
  };
  const shape = (
    node: ts.Node,
    kind: ShapeUnit['kind'],
    name: string,
    start = node.getStart(sf),
    end = node.end,
  ): void => {
    const { hash, tokens } = shapeHash(text, start, end, variant);
    shapes.push({ startLine: lineOf(start), endLine: lineOf(end), kind, name, hash, tokens });
  };
  /** A type annotation with its colon (`: string`): the colon ends right where the type's full text starts. */
  const annotation = (type: ts.TypeNode | undefined): void => {
    if (type === undefined) return;
    typeOnly(text[type.pos - 1] === ':' ? type.pos - 1 : type.getStart(sf), type.end);
  };
  /** `<T extends X>` / `<string>`: the list with its angle brackets. */
  const angleList = (list: ts.NodeArray<ts.Node> | undefined): void => {
    if (list === undefined) return;
    typeOnly(text[list.pos - 1] === '<' ? list.pos - 1 : list.pos, text[list.end] === '>' ? list.end + 1 : list.end);
  };
  const overloads = (members: readonly ts.Node[]): void => {
    // Consecutive signatures without a body, of one name, are one overload list.
    let group: ts.Node[] = [];
    const flush = (): void => {
      const first = group[0];
      const last = group.at(-1);
      if (first !== undefined && last !== undefined && group.length >= 1)
        shape(first, group.length > 1 ? 'overloads' : 'signature', nameOf(first), first.getStart(sf), last.end);
      group = [];
    };
    for (const member of members) {
      const signature =
        (ts.isFunctionDeclaration(member) ||
          ts.isMethodDeclaration(member) ||
          ts.isMethodSignature(member) ||
          ts.isConstructorDeclaration(member)) &&
        (member as ts.FunctionLikeDeclaration).body === undefined;
      if (signature && (group.length === 0 || nameOf(group[0] as ts.Node) === nameOf(member))) group.push(member);
      else {
        flush();
        if (signature) group.push(member);
      }
    }
    flush();
  };
  const nameOf = (node: ts.Node): string => {
    const name = (node as { name?: ts.Node }).name;
    return name === undefined ? '' : name.getText(sf);
  };

  const visit = (node: ts.Node): void => {
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) {
      typeOnly(node.getStart(sf), node.end);
      shape(node, ts.isInterfaceDeclaration(node) ? 'interface' : 'type', node.name.text);
      if (ts.isInterfaceDeclaration(node)) overloads(node.members);
      return;
    }
    if (
      hasModifier(node, ts.SyntaxKind.DeclareKeyword) ||
      (ts.isExportDeclaration(node) && node.isTypeOnly) ||
      (ts.isImportDeclaration(node) && node.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword)
    ) {
      typeOnly(node.getStart(sf), node.end);
      return;
    }
    if (
      (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node)) &&
      node.body === undefined
    ) {
      // An overload signature or an abstract member: types only.
      typeOnly(node.getStart(sf), node.end);
      return;
    }
    if (ts.isPropertyDeclaration(node) && node.initializer === undefined) {
      // A field declared with its type only (decorators included): the shape of a DTO.
      typeOnly(node.getStart(sf), node.end);
      return;
    }
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const fieldsOnly =
        node.members.length > 0 &&
        node.members.every((m) => ts.isPropertyDeclaration(m) && m.initializer === undefined);
      if (fieldsOnly) shape(node, 'fields', node.name?.text ?? '');
      else overloads(node.members);
      for (const clause of node.heritageClauses ?? [])
        if (clause.token === ts.SyntaxKind.ImplementsKeyword) typeOnly(clause.getStart(sf), clause.end);
    }
    if (ts.isSourceFile(node) || ts.isModuleBlock(node)) overloads(node.statements);
    if (isFunctionLike(node)) {
      angleList(node.typeParameters);
      annotation(node.type);
      if (node.body !== undefined)
        bodies.push({ start: node.body.getStart(sf), end: node.body.end, id: bodies.length + 1 });
    }
    if (
      ts.isParameter(node) ||
      ts.isVariableDeclaration(node) ||
      ts.isPropertyDeclaration(node) ||
      ts.isPropertySignature(node)
    )
      annotation(node.type);
    if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) typeOnly(node.expression.end, node.end);
    if (ts.isTypeAssertionExpression(node)) typeOnly(node.getStart(sf), node.expression.getStart(sf));
    if (
      ts.isCallExpression(node) ||
      ts.isNewExpression(node) ||
      ts.isExpressionWithTypeArguments(node) ||
      ts.isTaggedTemplateExpression(node)
    )
      angleList(node.typeArguments);
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) angleList(node.typeParameters);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return {
    typeRanges: merge(ranges),
    bodies: bodies.sort((a, b) => a.start - b.start),
    shapes: shapes.sort((a, b) => a.startLine - b.startLine),
  };
}

function merge(ranges: TextRange[]): TextRange[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const out: TextRange[] = [];
  for (const range of sorted) {
    const last = out.at(-1);
    if (last !== undefined && range.start <= last.end)
      out[out.length - 1] = { start: last.start, end: Math.max(last.end, range.end) };
    else out.push(range);
  }
  return out;
}
