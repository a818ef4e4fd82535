const { Octokit } = require('@octokit/rest');

const octokit = new Octokit({ auth: 'ghp_Z1LGKN9bemzYumle29nmwYfq483XZZLT2trK' }); // VULN: secret

module.exports = async function release(tag) {
  await octokit.repos.createRelease({ owner: 'acme', repo: 'app', tag_name: tag });
};
