import type { FrameworkModel } from './types.js';

/** GraphQL resolver maps: the second parameter of `Query: { user: (parent, args) => … }` is the client's arguments. */
export const graphqlModel: FrameworkModel = {
  id: 'graphql',
  description: 'resolver arguments in Query/Mutation/Subscription/resolvers objects.',
  entryHint: /\b(Query|Mutation|resolvers?)\b/,
  parameters: { resolverOwners: /^(Query|Mutation|Subscription|resolvers|[A-Z]\w*Resolvers?)$/ },
};
