const { Sequelize, DataTypes } = require('sequelize');
const sequelize = new Sequelize(process.env.DATABASE_URL);
exports.Comment = sequelize.define('Comment', { postId: DataTypes.INTEGER, body: DataTypes.TEXT });
