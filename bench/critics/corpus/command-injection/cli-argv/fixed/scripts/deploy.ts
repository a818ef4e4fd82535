import { execFileSync } from 'node:child_process';

const [, , target = 'staging'] = process.argv;
execFileSync('rsync', ['-az', './dist/', `deploy@${target}:/srv/app`], { stdio: 'inherit' });
