exports.up = function (knex) {
  return knex.schema.alterTable('contacts', (table) => {
    table.dropColumn('fax'); // VULN: db/drop-column
  });
};

exports.down = function () {
  throw new Error('irreversible');
};
