'use strict';

module.exports = {
  async up(queryInterface) {
    await queryInterface.removeColumn('Users', 'phone');
  },
  async down(queryInterface, Sequelize) {
    await queryInterface.addColumn('Users', 'phone', { type: Sequelize.STRING });
  },
};
