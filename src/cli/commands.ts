import { KeysService } from '../api-keys/keys.service';
import { DomainError } from '../common/errors';
import { MODES, Mode } from '../common/scope';
import { PartnersService } from '../partners/partners.service';
import { PLAN_CODES, PlanCode } from '../plans/plan';
import { requireOption, UsageError } from './args';
import type { CliCommand } from './cli-command';

function modeOption(value: string | true | undefined, fallback: Mode): Mode {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(MODES as string[]).includes(value)) throw new UsageError('--mode must be test or live');
  return value as Mode;
}

/** Operator commands by their two-word name. Each prints one JSON object, for scripts. */
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
    const keys = app.get(KeysService);
    // The key itself is found by its hash; anything else is taken as a key id.
    const keyId = given.startsWith('eck_') ? await keys.idOf(given) : given;
    if (!keyId) throw new DomainError('api_key_not_found');
    const key = await keys.revoke(keyId);
    return { id: key.id, revoked_at: key.revoked_at };
  },
};
