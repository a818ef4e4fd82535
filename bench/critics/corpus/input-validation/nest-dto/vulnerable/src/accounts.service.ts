import { Injectable } from '@nestjs/common';

@Injectable()
export class AccountsService {
  open(input: { owner: string; currency: string }) {
    return { id: 1, ...input };
  }
}
