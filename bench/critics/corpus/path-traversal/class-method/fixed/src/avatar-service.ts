import fse from 'fs-extra';
import path from 'path';

export class AvatarService {
  private readonly root = '/var/avatars';

  async remove(userId: string, fileName: string) {
    const target = path.resolve(this.root, userId, fileName);
    if (path.relative(this.root, target).startsWith('..')) throw new Error('outside avatar root');
    await fse.remove(target);
  }
}
