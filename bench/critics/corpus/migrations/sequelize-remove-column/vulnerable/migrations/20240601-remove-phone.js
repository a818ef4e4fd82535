'use strict';

module.exports = {
  async up(queryInterface) {
    await queryInterface.removeColumn('Users', 'phone'); // VULN: db/drop-column
  },
  async down() {},
};
