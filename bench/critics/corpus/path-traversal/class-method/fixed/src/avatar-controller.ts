import { Controller, Delete, Param } from '@nestjs/common';
import { AvatarService } from './avatar-service';

@Controller('avatars')
export class AvatarController {
  constructor(private readonly avatars: AvatarService) {}

  @Delete(':user/:file')
  remove(@Param('user') user: string, @Param('file') file: string) {
    return this.avatars.remove(user, file);
  }
}
