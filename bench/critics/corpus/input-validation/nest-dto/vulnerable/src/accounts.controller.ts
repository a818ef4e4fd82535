import { Body, Controller, Post } from '@nestjs/common';
import { AccountsService } from './accounts.service';

@Controller('accounts')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  create(@Body() body: any) {
    return this.accounts.open(body); // VULN: unvalidated-input
  }
}
