import fse from 'fs-extra';
import path from 'path';

export class AvatarService {
  private readonly root = '/var/avatars';

  async remove(userId: string, fileName: string) {
    await fse.remove(path.join(this.root, userId, fileName)); // VULN: path-traversal
  }
}
