import { kindBit } from '../model.js';
import type { TaintV, Val } from '../model.js';
import { isTaint, join } from '../values.js';
import type { CallView, FrameworkModel } from './types.js';

/** MongoDB-style query methods (driver, mongoose, MarsDB/NeDB) whose first argument is a filter. */
const FILTER_METHODS = [
  'find',
  'findOne',
  'findOneAndUpdate',
  'findOneAndDelete',
  'findOneAndReplace',
  'updateOne',
  'updateMany',
  'update',
  'deleteOne',
  'deleteMany',
  'remove',
  'count',
  'countDocuments',
  'exists',
  'distinct',
];
/** Methods whose operator-injection check (validation/nosql-injection) applies. */
const OPERATOR_METHODS = FILTER_METHODS;

function filterOf(call: CallView): Val {
  const filter = call.args[0] ?? null;
  return filter !== null && filter.k === 'obj' ? filter : null;
}

/** `{ $where: 'this.owner == ' + id }`, also inside an aggregation's `$match` stage. */
function whereString(call: CallView): Val {
  const filter = filterOf(call);
  if (filter === null || filter.k !== 'obj') return null;
  const direct = filter.fields.get('$where') ?? null;
  if (direct !== null) return direct;
  return null;
}

function aggregateWhere(call: CallView): Val {
  const pipeline = call.args[0] ?? null;
  if (pipeline === null || pipeline.k !== 'obj') return null;
  let out: Val = null;
  for (const stage of pipeline.elems ?? []) {
    const match = stage !== null && stage.k === 'obj' ? (stage.fields.get('$match') ?? null) : null;
    const where = match !== null && match.k === 'obj' ? (match.fields.get('$where') ?? null) : null;
    out = join(out, where);
  }
  return out;
}

/** `mapReduce(map, reduce)` with functions written as strings (or `{ map, reduce }`). */
function mapReduceCode(call: CallView): Val {
  const first = call.args[0] ?? null;
  if (first !== null && first.k === 'obj' && first.literal !== null) {
    return ['map', 'reduce', 'finalize'].reduce<Val>(
      (acc, key) => join(acc, isTaint(first.fields.get(key) ?? null) ? (first.fields.get(key) ?? null) : null),
      null,
    );
  }
  return call.args.slice(0, 2).reduce<Val>((acc, arg) => join(acc, isTaint(arg) ? arg : null), null);
}

/**
 * A filter field holding a raw request value that may be an object (`{ "$ne": null }`). Sequelize's
 * `update(values, { where })` and `count({ where })` take no filter first: their objects are values
 * and options.
 */
function operatorValue(call: CallView): Val {
  const filter = filterOf(call);
  if (filter === null || filter.k !== 'obj' || filter.literal === null) return null;
  const second = call.args[1] ?? null;
  // A stored record's update(values) (Sequelize instance) writes values, it selects nothing.
  if (call.receiver !== null && call.receiver.k === 'record') return null;
  if (filter.fields.has('where') || (second !== null && second.k === 'obj' && second.fields.has('where'))) return null;
  for (const [key, val] of filter.fields) {
    if (key === 'where' || key === '$where' || !isTaint(val)) continue;
    const taint: TaintV = val;
    if (taint.origin === 'http' && !taint.scalar && !taint.validated && (taint.clean & kindBit('nosql')) === 0)
      return taint;
  }
  return null;
}

/**
 * MongoDB and look-alikes: `$where` and `mapReduce` run JavaScript strings on the server (code
 * injection); a filter value that can be an object lets a client pass operators (the
 * input-validation checker's `nosql` rule).
 */
export const mongodbModel: FrameworkModel = {
  id: 'mongodb',
  description:
    'MongoDB driver, mongoose, MarsDB/NeDB: $where and mapReduce strings (code), filter values that may be operator objects (nosql).',
  sinks: [
    { kind: 'code', call: { method: FILTER_METHODS }, value: whereString, label: '$where' },
    { kind: 'code', call: { method: 'aggregate' }, value: aggregateWhere, label: '$where' },
    { kind: 'code', call: { method: '$where' }, args: [0] },
    { kind: 'code', call: { method: 'mapReduce' }, value: mapReduceCode },
    { kind: 'nosql', call: { method: OPERATOR_METHODS }, value: operatorValue },
  ],
};
