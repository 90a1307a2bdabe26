import { DataSource } from 'typeorm';
import { ApiKey } from '../auth/api-key.entity';
import { hashApiKey, parseApiKey } from '../auth/api-key';
import { KeysService } from '../auth/keys.service';
import { DomainError } from '../common/errors';
import { MODES, Mode } from '../common/scope';
import { PartnersService } from '../partners/partners.service';
import { PLAN_CODES, PlanCode } from '../partners/plan.entity';
import { requireOption, UsageError } from './args';
import type { CliCommand } from './run-cli';

function modeOption(value: string | true | undefined, fallback: Mode): Mode {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(MODES as string[]).includes(value)) throw new UsageError('--mode must be test or live');
  return value as Mode;
}

/** Operator commands by their two-word name (contract section 4). Each prints one JSON object. */
export const CLI_COMMANDS: Record<string, CliCommand> = {
  'admin-key create': async (app, args) => {
    const key = await app.get(PartnersService).createAdminKey(requireOption(args, 'name'), modeOption(args.options.mode, 'live'));
    return { id: key.id, api_key: key.key };
  },

  'partner create': async (app, args) => {
    const plan = requireOption(args, 'plan');
    if (!(PLAN_CODES as readonly string[]).includes(plan)) throw new UsageError(`--plan must be one of ${PLAN_CODES.join(', ')}`);
    const mode = modeOption(args.options.mode, 'test');
    const created = await app.get(PartnersService).create({
      name: requireOption(args, 'name'),
      email: requireOption(args, 'email'),
      plan: plan as PlanCode,
      mode,
    });
    // key_id is what `key revoke` takes (the key itself works too).
    return { partner_id: created.partner.id, key_id: created.api_key.id, api_key: created.api_key.key, mode, plan };
  },

  'key revoke': async (app, args) => {
    const given = args.words[2];
    if (!given) throw new UsageError('key revoke needs a KEY_ID or the key itself');
    let keyId = given;
    if (given.startsWith('eck_')) {
      // The key itself: found by its hash (keys are stored only as SHA-256).
      if (!parseApiKey(given)) throw new DomainError('api_key_not_found');
      const row = await app.get(DataSource).getRepository(ApiKey).findOne({ where: { keyHash: hashApiKey(given) }, select: { id: true } });
      if (!row) throw new DomainError('api_key_not_found');
      keyId = row.id;
    }
    const key = await app.get(KeysService).revoke(keyId);
    return { id: key.id, revoked_at: key.revoked_at };
  },
};
