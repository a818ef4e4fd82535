import { execSync } from 'node:child_process';

const [, , target = 'staging'] = process.argv;
execSync(`rsync -az ./dist/ deploy@${target}:/srv/app`, { stdio: 'inherit' }); // VULN: command-injection
