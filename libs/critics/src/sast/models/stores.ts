import type { TaintV, Val } from '../model.js';
import { RESPONSE_RECEIVER } from './http-response.js';
import type { CallView, FrameworkModel } from './types.js';

/** Methods that write data to a store (ORMs, query builders, document databases). */
const WRITE_METHODS = [
  'create',
  'createMany',
  'insert',
  'insertMany',
  'insertOne',
  'update',
  'updateMany',
  'updateOne',
  'upsert',
  'save',
  'findOneAndUpdate',
  'findByIdAndUpdate',
  'replaceOne',
  'bulkCreate',
  'values',
  'set',
  'build',
  'assign',
];
/** Methods that return stored records. */
const READ_METHODS = [
  'find',
  'findOne',
  'findAll',
  'findByPk',
  'findById',
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'findOneBy',
  'findBy',
  'findAndCountAll',
  'findOneOrFail',
  'findByIds',
  'getOne',
  'getMany',
];

/** A whole request object (mass assignment), directly or as a field/spread of an object literal. */
export function wholeInput(val: Val): TaintV | null {
  if (val === null) return null;
  if (val.k === 'taint') return val.whole && !val.validated && val.origin === 'http' ? val : null;
  if (val.k !== 'obj') return null;
  for (const part of [
    val.rest,
    val.fields.get('data'),
    val.fields.get('$set'),
    val.fields.get('values'),
    val.fields.get('attributes'),
    val.fields.get('update'),
  ]) {
    if (
      part !== undefined &&
      part !== null &&
      part.k === 'taint' &&
      part.whole &&
      !part.validated &&
      part.origin === 'http'
    )
      return part;
  }
  return null;
}

/** The whole request body or query handed to a write (`User.create(req.body)`, `Object.assign(user, req.body)`). */
function massAssigned(call: CallView): Val {
  const objectAssign = call.name === 'assign' && call.receiverText === 'Object';
  const chain = call.receiverText;
  const store =
    !RESPONSE_RECEIVER.test(call.root) &&
    !(call.receiver !== null && call.receiver.k === 'req') &&
    (call.name !== 'values' || /insert|into/i.test(chain)) &&
    (call.name !== 'set' || /update/i.test(chain)) &&
    (call.name !== 'build' || /^[A-Z]/.test(call.root)) &&
    (call.name !== 'assign' || objectAssign);
  if (!store) return null;
  const target = call.objectLiteral(0);
  const candidates = objectAssign
    ? target !== null && target.properties.length === 0
      ? []
      : call.args.slice(1)
    : call.args;
  for (const arg of candidates) {
    const whole = wholeInput(arg);
    if (whole !== null) return whole;
  }
  return null;
}

/**
 * Stores (Sequelize, mongoose, TypeORM, Prisma, the MongoDB driver, knex): writes of a whole
 * request object are mass assignment; fields written from request input and read back elsewhere
 * carry that input on (second-order flows).
 */
export const storesModel: FrameworkModel = {
  id: 'stores',
  description:
    'ORM and database writes (create/update/save/insert/values/Object.assign): mass assignment; store writes and reads for second-order flows.',
  sinks: [{ kind: 'mass-assignment', call: { method: WRITE_METHODS }, value: massAssigned }],
  stores: {
    writeMethods: WRITE_METHODS.filter((m) => !['values', 'set', 'build', 'assign'].includes(m)),
    readMethods: READ_METHODS,
    // A model class (`UserModel`, `models.User`), a collection or repository, a Prisma delegate.
    receiver:
      /(^|\.)([A-Z][A-Za-z0-9]*|\w*(Model|Collection|Repository|Repo|Table|Entity|Dao|Store)s?)$|^(this\.)?(prisma|db|database)\.\w+$/,
  },
};
