import { db } from './db';

export const resolvers = {
  Query: {
    product: async (_parent: unknown, args: { slug: string }) => {
      const rows = await db.query(`SELECT * FROM products WHERE slug = '${args.slug}'`); // VULN: sql-injection
      return rows[0];
    },
  },
};
