import { KeysService } from '../auth/keys.service';
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
    return { partner_id: created.partner.id, api_key: created.api_key.key, mode, plan };
  },

  'key revoke': async (app, args) => {
    const keyId = args.words[2];
    if (!keyId) throw new UsageError('key revoke needs a KEY_ID');
    const key = await app.get(KeysService).revoke(keyId);
    return { id: key.id, revoked_at: key.revoked_at };
  },
};
