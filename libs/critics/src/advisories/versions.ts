/**
 * Version orderings the OSV ranges are written in. `SEMVER` ranges use SemVer 2.0 precedence; an
 * `ECOSYSTEM` range uses its ecosystem's own order: npm, crates.io and Go versions are SemVer (Go's
 * with a `v` that OSV drops), PyPI's are PEP 440. A version an ordering cannot read is null, and a
 * range it cannot place is not matched by order (the advisory's explicit `versions` list still is).
 */
export type VersionOrder = (a: string, b: string) => number | null;

interface SemVer {
  readonly release: readonly number[];
  readonly pre: readonly (string | number)[];
}

const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parseSemVer(text: string): SemVer | null {
  const match = SEMVER.exec(text.trim());
  if (match === null) return null;
  const pre =
    match[4] === undefined ? [] : match[4].split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  return { release: [Number(match[1]), Number(match[2]), Number(match[3])], pre };
}

function compareNumbers(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return 0;
}

/** SemVer 2.0 precedence (section 11): build metadata ignored, a pre-release sorts before its release. */
export const compareSemVer: VersionOrder = (a, b) => {
  const x = parseSemVer(a);
  const y = parseSemVer(b);
  if (x === null || y === null) return null;
  const release = compareNumbers(x.release, y.release);
  if (release !== 0) return release;
  if (x.pre.length === 0 || y.pre.length === 0) return Math.sign(y.pre.length - x.pre.length);
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i += 1) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (p === q) continue;
    if (typeof p === 'number' && typeof q === 'number') return Math.sign(p - q);
    if (typeof p === 'number') return -1;
    if (typeof q === 'number') return 1;
    return p < q ? -1 : 1;
  }
  return 0;
};

interface Pep440 {
  readonly epoch: number;
  readonly release: readonly number[];
  /** [phase, n]: a (alpha) = 0, b = 1, rc = 2; absent = a final release. */
  readonly pre: readonly [number, number] | null;
  readonly post: number | null;
  readonly dev: number | null;
}

const PEP440 =
  /^v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(a|alpha|b|beta|rc|c|pre|preview)[-_.]?(\d*))?(?:(?:-(\d+))|(?:[-_.]?(post|rev|r)[-_.]?(\d*)))?(?:[-_.]?dev[-_.]?(\d*))?(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?$/i;

function parsePep440(text: string): Pep440 | null {
  const match = PEP440.exec(text.trim().toLowerCase());
  if (match === null) return null;
  const phase = match[3];
  const preKind = phase === undefined ? null : phase.startsWith('a') ? 0 : phase.startsWith('b') ? 1 : 2;
  const postNumber = match[5] ?? (match[6] === undefined ? undefined : match[7]);
  return {
    epoch: Number(match[1] ?? 0),
    release: (match[2] ?? '0').split('.').map(Number),
    pre: preKind === null ? null : [preKind, Number(match[4] || 0)],
    post: postNumber === undefined ? null : Number(postNumber || 0),
    dev: match[8] === undefined ? null : Number(match[8] || 0),
  };
}

/**
 * PEP 440 ordering: epoch, release (trailing zeros insignificant), then dev < pre < final < post.
 * Local versions (`+…`) are ignored, as OSV's PyPI ranges do.
 */
export const comparePep440: VersionOrder = (a, b) => {
  const x = parsePep440(a);
  const y = parsePep440(b);
  if (x === null || y === null) return null;
  if (x.epoch !== y.epoch) return Math.sign(x.epoch - y.epoch);
  const release = compareNumbers(x.release, y.release);
  if (release !== 0) return release;
  // Keys as in the `packaging` library: a bare dev release sorts before every pre-release.
  const preKey = (v: Pep440): readonly number[] =>
    v.pre !== null ? [v.pre[0], v.pre[1]] : v.dev !== null && v.post === null ? [-1, 0] : [3, 0];
  const pre = compareNumbers(preKey(x), preKey(y));
  if (pre !== 0) return pre;
  const postKey = (v: Pep440): number => (v.post === null ? -1 : v.post);
  if (postKey(x) !== postKey(y)) return Math.sign(postKey(x) - postKey(y));
  const devKey = (v: Pep440): number => (v.dev === null ? Number.POSITIVE_INFINITY : v.dev);
  if (devKey(x) === devKey(y)) return 0;
  return devKey(x) < devKey(y) ? -1 : 1;
};

/** The ecosystems whose lockfiles we read, as OSV spells them. */
export const ECOSYSTEMS = ['npm', 'crates.io', 'Go', 'PyPI'] as const;
export type Ecosystem = (typeof ECOSYSTEMS)[number];

/** The order an `ECOSYSTEM` range of this ecosystem is written in. */
export function ecosystemOrder(ecosystem: Ecosystem): VersionOrder {
  return ecosystem === 'PyPI' ? comparePep440 : compareSemVer;
}

/** A package name as the ecosystem compares it (PyPI names are case- and separator-insensitive, PEP 503). */
export function normalizePackageName(ecosystem: Ecosystem, name: string): string {
  return ecosystem === 'PyPI' ? name.toLowerCase().replace(/[-_.]+/g, '-') : name;
}

/** Versions as the advisory writes them: Go modules' `v1.2.3` is `1.2.3` in OSV. */
export function normalizeVersion(ecosystem: Ecosystem, version: string): string {
  return ecosystem === 'Go' ? version.replace(/^v/, '') : version;
}
