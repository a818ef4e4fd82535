import { Body, Controller, Post } from '@nestjs/common';
import { IsIn, IsString, Length } from 'class-validator';
import { AccountsService } from './accounts.service';

export class OpenAccountDto {
  @IsString()
  @Length(1, 120)
  owner!: string;

  @IsIn(['EUR', 'USD'])
  currency!: string;
}

@Controller('accounts')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  create(@Body() body: OpenAccountDto) {
    return this.accounts.open(body);
  }
}
