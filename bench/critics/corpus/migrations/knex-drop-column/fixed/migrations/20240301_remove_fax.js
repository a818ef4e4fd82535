exports.up = function (knex) {
  return knex.schema.alterTable('contacts', (table) => {
    table.dropColumn('fax');
  });
};

exports.down = function (knex) {
  return knex.schema.alterTable('contacts', (table) => {
    table.string('fax', 40);
  });
};
