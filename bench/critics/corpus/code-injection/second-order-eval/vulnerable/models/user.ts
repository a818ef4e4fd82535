import { DataTypes, Model } from 'sequelize';
export class UserModel extends Model {
  declare signature: string;
}
export const userColumns = { signature: DataTypes.STRING };
