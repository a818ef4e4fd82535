import { MigrationInterface, QueryRunner } from 'typeorm';

export class AddPlan1718000000000 implements MigrationInterface {
  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "account" ADD "plan" character varying NOT NULL DEFAULT 'free'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "account" DROP COLUMN "plan"`);
  }
}
