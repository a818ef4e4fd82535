import { db } from './db';

export const resolvers = {
  Query: {
    product: async (_parent: unknown, args: { slug: string }) => {
      const rows = await db.query('SELECT * FROM products WHERE slug = $1', [args.slug]);
      return rows[0];
    },
  },
};
