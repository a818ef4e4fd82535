import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

@Injectable()
export class UsersService {
  constructor(private readonly dataSource: DataSource) {}

  async findOne(id: string) {
    const rows = await this.dataSource.query('SELECT * FROM "user" WHERE id = $1', [id]);
    return rows[0];
  }
}
