import type ts from 'typescript';
import type { CheckKind, Loc, ObjV, Origin, Safety, TaintV, Val } from './model.js';
import { kindBit } from './model.js';
import { containsHtml, literalText, skip } from './syntax.js';

let envIds = 0;

/**
 * Variables of one scope. Branches work on clones (same parent) and are merged afterwards; writes
 * to a variable found in an enclosing scope go there (closures see them), refinements shadow.
 */
export class Env {
  readonly id = ++envIds;
  private readonly vars = new Map<string, Val>();

  constructor(readonly parent: Env | null) {}

  lookup(name: string): { found: boolean; val: Val } {
    if (this.vars.has(name)) return { found: true, val: this.vars.get(name) ?? null };
    return this.parent === null ? { found: false, val: null } : this.parent.lookup(name);
  }

  /** Declares (or shadows) in this scope. */
  declare(name: string, val: Val): void {
    this.vars.set(name, val);
  }

  /** Assigns where the variable lives; declares here when it lives nowhere. */
  assign(name: string, val: Val): void {
    if (!this.assignExisting(name, val)) this.vars.set(name, val);
  }

  private assignExisting(name: string, val: Val): boolean {
    if (this.vars.has(name)) {
      this.vars.set(name, val);
      return true;
    }
    return this.parent?.assignExisting(name, val) ?? false;
  }

  clone(): Env {
    const copy = new Env(this.parent);
    for (const [name, val] of this.vars) copy.vars.set(name, val);
    return copy;
  }

  ownNames(): IterableIterator<string> {
    return this.vars.keys();
  }

  /** Joins branch environments (clones of one scope); null branches (returned/threw) are skipped. */
  static merge(branches: readonly (Env | null)[]): Env | null {
    const live = branches.filter((b): b is Env => b !== null);
    const first = live[0];
    if (first === undefined) return null;
    if (live.length === 1) return first;
    const merged = new Env(first.parent);
    const names = new Set<string>();
    for (const branch of live) for (const name of branch.ownNames()) names.add(name);
    for (const name of names) {
      let val: Val = null;
      for (const branch of live) val = join(val, branch.lookup(name).val);
      merged.vars.set(name, val);
    }
    return merged;
  }
}

export function isTaint(val: Val): val is TaintV {
  return val !== null && val.k === 'taint';
}

export function newTaint(origin: Origin, source: Loc, sourcePos: number, extra: Partial<TaintV> = {}): TaintV {
  return {
    k: 'taint',
    origin,
    source,
    sourcePos,
    via: [],
    clean: 0,
    validated: false,
    normalized: false,
    prefix: '',
    html: false,
    built: false,
    whole: false,
    scalar: false,
    derivedFrom: null,
    ...extra,
  };
}

export function emptyObj(): ObjV {
  return { k: 'obj', fields: new Map(), rest: null, elems: null, literal: null };
}

function joinTaint(a: TaintV, b: TaintV): TaintV {
  return {
    ...a,
    clean: a.clean & b.clean,
    validated: a.validated && b.validated,
    normalized: a.normalized && b.normalized,
    prefix: a.prefix === b.prefix ? a.prefix : null,
    html: a.html || b.html,
    built: a.built || b.built,
    whole: a.whole || b.whole,
    scalar: a.scalar && b.scalar,
    derivedFrom: a.derivedFrom ?? b.derivedFrom,
  };
}

/** The least value that is at least as tainted as both (branch merge). */
export function join(a: Val, b: Val, depth = 0): Val {
  if (a === null) return b;
  if (b === null || a === b) return a;
  if (a.k === 'taint' && b.k === 'taint') return joinTaint(a, b);
  if (a.k === 'taint') return a;
  if (b.k === 'taint') return b;
  if (a.k === 'obj' && b.k === 'obj') {
    if (depth > 4) return a;
    const fields = new Map(a.fields);
    for (const [key, val] of b.fields) fields.set(key, join(fields.get(key) ?? null, val, depth + 1));
    const elems =
      a.elems !== null && b.elems !== null && a.elems.length === b.elems.length
        ? a.elems.map((val, i) => join(val, b.elems?.[i] ?? null, depth + 1))
        : null;
    let rest = join(a.rest, b.rest, depth + 1);
    if (elems === null) for (const val of [...(a.elems ?? []), ...(b.elems ?? [])]) rest = join(rest, val, depth + 1);
    return { k: 'obj', fields, rest, elems, literal: a.literal ?? b.literal };
  }
  if (a.k === 'req') return a;
  if (b.k === 'req') return b;
  return a;
}

/** Joins the tainted parts of a value into one taint (what a string built from it carries). */
export function flatten(val: Val, depth = 0): TaintV | null {
  if (val === null) return null;
  if (val.k === 'taint') return val;
  if (val.k !== 'obj' || depth > 3) return null;
  let out: TaintV | null = null;
  const parts = [...val.fields.values(), val.rest, ...(val.elems ?? [])];
  for (const part of parts) {
    const flat = flatten(part, depth + 1);
    if (flat !== null) out = out === null ? flat : joinTaint(out, flat);
  }
  return out;
}

/** The taint of a value that is not sanitised for `kind`, or null. */
export function taintFor(val: Val, kind: CheckKind, depth = 0): TaintV | null {
  if (val === null) return null;
  if (val.k === 'taint') return (val.clean & kindBit(kind)) === 0 ? val : null;
  if (val.k !== 'obj' || depth > 3) return null;
  for (const part of [...(val.elems ?? []), ...val.fields.values(), val.rest]) {
    const found = taintFor(part, kind, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/** Marks a value clean for the kinds in `mask` (and validated, when asked). */
export function cleanVal(val: Val, mask: number, validated: boolean, depth = 0): Val {
  if (val === null) return null;
  if (val.k === 'taint')
    return { ...val, clean: val.clean | mask, validated: val.validated || validated, scalar: val.scalar || validated };
  if (val.k !== 'obj' || depth > 3) return val;
  const fields = new Map<string, Val>();
  for (const [key, part] of val.fields) fields.set(key, cleanVal(part, mask, validated, depth + 1));
  return {
    ...val,
    fields,
    rest: cleanVal(val.rest, mask, validated, depth + 1),
    elems: val.elems === null ? null : val.elems.map((part) => cleanVal(part, mask, validated, depth + 1)),
  };
}

/** Replaces a value's taint properties (keeping its source), recursively through objects. */
export function mapTaint(val: Val, f: (t: TaintV) => Val, depth = 0): Val {
  if (val === null) return null;
  if (val.k === 'taint') return f(val);
  if (val.k !== 'obj' || depth > 3) return val;
  const fields = new Map<string, Val>();
  for (const [key, part] of val.fields) fields.set(key, mapTaint(part, f, depth + 1));
  return {
    ...val,
    fields,
    rest: mapTaint(val.rest, f, depth + 1),
    elems: val.elems === null ? null : val.elems.map((p) => mapTaint(p, f, depth + 1)),
  };
}

/** A short signature of a value for memoising function analyses. */
export function signature(val: Val, depth = 0): string {
  if (val === null) return '0';
  switch (val.k) {
    case 'taint':
      return `t${val.origin[0]}${val.clean}${+val.validated}${+val.normalized}${+val.whole}${+val.scalar}${+val.html}${+val.built}${val.prefix === '' ? 'e' : val.prefix === null ? 'n' : 'p'}`;
    case 'obj':
      if (depth > 1) return 'o';
      return `o{${[...val.fields].map(([k, v]) => `${k}:${signature(v, depth + 1)}`).join(',')}|${signature(val.rest, depth + 1)}|${(val.elems ?? []).map((v) => signature(v, depth + 1)).join(',')}}`;
    case 'fn':
      return `f${val.fn.file}:${val.fn.node.pos}`;
    case 'mod':
      return `m${val.module}.${val.path.join('.')}`;
    case 'inst':
    case 'cls':
      return `${val.k}${val.cls.file}:${val.cls.node.pos}`;
    case 'ns':
      return `n${val.file}`;
    case 'global':
      return `g${val.name}`;
    case 'req':
      return `r${val.flavor ?? ''}${val.validated ? 'v' : ''}${val.trusted === true ? 't' : ''}`;
    case 'regex':
      return `x${val.literal}`;
    case 'record':
      return `d${val.store}`;
    case 'schema':
    case 'guard':
      return val.k;
  }
}

export function elementOf(val: Val): Val {
  if (val === null) return null;
  if (val.k === 'obj') return (val.elems ?? []).reduce<Val>((acc, e) => join(acc, e), val.rest);
  // A list of stored records: each element is a record of the same store.
  if (val.k === 'record') return val;
  return val.k === 'taint' ? { ...val, whole: false } : null;
}

export function withVia(val: Val, callLoc: Loc | null): Val {
  if (callLoc === null) return val;
  return mapTaint(val, (t) => ({ ...t, via: [...t.via, callLoc].slice(-4) }));
}

export function remapSources(
  ret: Val,
  oldSources: readonly (TaintV | null)[],
  newSources: readonly (TaintV | null)[],
): Val {
  if (ret === null) return null;
  return mapTaint(ret, (t) => {
    const index = oldSources.findIndex(
      (old) =>
        old !== null &&
        old.source.file === t.source.file &&
        old.source.line === t.source.line &&
        old.source.text === t.source.text,
    );
    const replacement = index === -1 ? undefined : newSources[index];
    return replacement === undefined || replacement === null
      ? t
      : {
          ...t,
          origin: replacement.origin,
          source: replacement.source,
          sourcePos: replacement.sourcePos,
          via: replacement.via,
        };
  });
}

/** String concatenation: taint from either side, the known constant start, and HTML/SQL shape. */
export function concat(left: Val, leftNode: ts.Expression, right: Val, rightNode: ts.Expression): Val {
  const lt = flatten(left);
  const rt = flatten(right);
  if (lt === null && rt === null) return null;
  const leftText = literalText(skip(leftNode));
  const rightText = literalText(skip(rightNode));
  const constant = (leftText ?? '') + (rightText ?? '');
  let prefix: string | null;
  if (lt !== null) prefix = lt.prefix;
  else if (leftText !== null) prefix = leftText + (rt?.prefix ?? '');
  else prefix = '\u0000';
  const base = lt !== null && rt !== null ? (join(lt, rt) as TaintV) : (lt ?? rt);
  if (base === null) return null;
  return {
    ...base,
    prefix,
    html: base.html || containsHtml(constant),
    built: base.built || constant.trim() !== '' || (lt !== null) !== (rt !== null),
    whole: false,
    scalar: true,
  };
}

export function applySafety(safety: Safety, input: Val): Val {
  if (input === null) return null;
  switch (safety.kind) {
    case 'safe':
      return null;
    case 'string':
      return mapTaint(flatten(input), (t) => ({ ...t, validated: true, scalar: true, whole: false }));
    case 'any':
      return mapTaint(input, (t) => ({ ...t, validated: true, whole: false }));
    case 'array':
      return {
        k: 'obj',
        fields: new Map(),
        rest: applySafety(safety.elem, elementOf(input)),
        elems: null,
        literal: null,
      };
    case 'object': {
      const fields = new Map<string, Val>();
      for (const [key, fieldSafety] of safety.fields) {
        const part =
          input.k === 'obj'
            ? (input.fields.get(key) ?? input.rest)
            : input.k === 'taint'
              ? { ...input, whole: false }
              : null;
        fields.set(key, applySafety(fieldSafety, part));
      }
      const rest = safety.passthrough
        ? mapTaint(flatten(input), (t) => ({ ...t, validated: true, whole: false }))
        : null;
      return { k: 'obj', fields, rest, elems: null, literal: null };
    }
  }
}
