import { relative } from 'node:path';
import { CriticId, DEFAULT_NAMESPACE } from '@rloop/contracts';
import { writeNatsConfig } from '../deploy/nats-config.js';
import { writePostgresSecrets } from '../deploy/postgres-secrets.js';
import { CliError, type CommandRegistrar } from '../program.js';
import { out } from './options.js';

function collect(value: string, previous: readonly string[]): string[] {
  return [...previous, value];
}

/** A path as the user would type it: relative below the working directory, absolute elsewhere. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}

/** `rloop deploy nats-config | postgres-secrets`: fresh credentials for a team deployment (docker-compose.yml). */
export const registerDeploy: CommandRegistrar = (program) => {
  const deploy = program
    .command('deploy')
    .description('credentials and configuration for running the fleet for a team (docker-compose.yml)');

  deploy
    .command('nats-config')
    .description(
      'write the NATS users and permissions (one per service, submitter, ops, each external critic) with fresh nkeys',
    )
    .option('--out <dir>', 'where to write nats/auth.conf and secrets/nats/', 'deploy')
    .option('--namespace <ns>', 'the fleet\u2019s subject namespace (default: $RLOOP_NAMESPACE or rloop)')
    .option('--critic <id>', 'an external critic that gets a user of its own (repeatable)', collect, [])
    .option('--force', 'replace existing seeds (every user gets a new key)')
    .addHelpText(
      'after',
      '\nWrites <out>/nats/auth.conf (public keys and permissions; include it from nats-server.conf) and, per user,\n' +
        '<out>/secrets/nats/<user>.nk (its nkey seed, 0600) and <user>.env (NATS_NKEY, NATS_INBOX_PREFIX).\n' +
        'Users: the six services, submitter (may only post plans), ops (escalations, resume/stop, journal queries\n' +
        'including rebuild, the critic registry) and critic-<id> for each --critic (only its own reports and\n' +
        'heartbeats). See docs/security.md.',
    )
    .action(async (opts: { out: string; namespace?: string; critic: string[]; force?: boolean }) => {
      const namespace = opts.namespace ?? process.env['RLOOP_NAMESPACE'] ?? DEFAULT_NAMESPACE;
      const bad = opts.critic.filter((id) => !CriticId.safeParse(id).success);
      if (bad.length > 0)
        throw new CliError(
          `--critic ${bad.join(', ')}: a critic id is lowercase segments joined by /, e.g. team/no-todo`,
        );
      let written;
      try {
        written = await writeNatsConfig({ out: opts.out, namespace, critics: opts.critic, force: opts.force === true });
      } catch (error) {
        throw new CliError(error instanceof Error ? error.message : String(error));
      }
      out(`wrote ${shown(written.authConfig)} (${written.identities.length} users, namespace ${namespace})`);
      for (const [i, identity] of written.identities.entries())
        out(`  ${identity.name.padEnd(40)} ${identity.role.padEnd(9)} ${shown(written.envFiles[i] ?? '')}`);
      out(
        'Restart nats-server (or `docker compose up -d nats`) to load it; a client signs in with its .env file, e.g.',
      );
      out(
        `  set -a; . ${shown(written.envFiles[written.identities.findIndex((i) => i.name === 'ops')] ?? '')}; set +a; npx rloop escalations`,
      );
    });

  deploy
    .command('postgres-secrets')
    .description('write fresh passwords for the journal\u2019s database: the owner (migrations) and the runtime role')
    .option('--out <dir>', 'where to write secrets/postgres/', 'deploy')
    .option('--host <host>', 'the database host as the services see it', 'postgres')
    .option('--database <name>', 'the database', 'rloop')
    .option('--owner <role>', 'the owner role (runs migrations)', 'rloop')
    .option('--runtime-role <role>', 'the journal\u2019s runtime role', 'rloop_journal')
    .option('--force', 'replace existing passwords')
    .action(
      async (opts: {
        out: string;
        host: string;
        database: string;
        owner: string;
        runtimeRole: string;
        force?: boolean;
      }) => {
        for (const [flag, value] of [
          ['--owner', opts.owner],
          ['--runtime-role', opts.runtimeRole],
          ['--database', opts.database],
        ] as const) {
          if (!/^[a-z_][a-z0-9_]{0,62}$/.test(value))
            throw new CliError(`${flag} ${value}: use a plain PostgreSQL name ([a-z_][a-z0-9_]*)`);
        }
        if (opts.owner === opts.runtimeRole)
          throw new CliError('--owner and --runtime-role must differ: the runtime role must not own the tables');
        let written;
        try {
          written = await writePostgresSecrets({
            out: opts.out,
            host: opts.host,
            database: opts.database,
            owner: opts.owner,
            runtimeRole: opts.runtimeRole,
            force: opts.force === true,
          });
        } catch (error) {
          throw new CliError(error instanceof Error ? error.message : String(error));
        }
        out(`wrote ${shown(written.ownerPassword)}, ${shown(written.journalEnv)} and ${shown(written.migrateEnv)}`);
        out('docker compose runs journal-migrate (migrations as the owner, then the runtime role) before the journal.');
      },
    );
};
