import { randomBytes } from 'node:crypto';
import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { RawResponse } from '../common/envelope.interceptor';
import { DomainError, validationFailed } from '../common/errors';
import { prefixedIdShape } from '../common/params';
import { createValidationPipe } from '../common/validation';
import { RecoverDeliveriesDto } from '../webhooks/dto/delivery.dto';
import { CreateWebhookDto, ListWebhooksQuery, RotateSecretDto, UpdateWebhookDto } from '../webhooks/dto/webhook.dto';
import { WebhookDeliveriesService } from '../webhooks/webhook-deliveries.service';
import { WebhookTestEvents } from '../webhooks/webhook-test-events.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import type { DashboardSession } from './dashboard-auth.service';
import { pageParam } from './dashboard-pages.controller';
import { DashboardPages } from './dashboard-pages';
import { DELIVERY_STATUSES, DeliveryFilters, deliveriesView, deliveryView, TEST_EVENT } from './views/deliveries.view';
import { PUBLIC_EVENT_TYPES } from '../events/event-map';
import { messageView } from './views/pages.view';
import { deleteConfirmView, rotatedView, webhooksView, webhookView } from './views/webhooks.view';

const PAGE_SIZE = 25;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;
const WEBHOOK_ID = prefixedIdShape('whk');
const pipe = createValidationPipe();

type Form = Record<string, unknown>;
const formOf = (req: Request): Form => req.body as Form;
/** A urlencoded field that may repeat (checkboxes): its string values. */
const listOf = (v: unknown): string[] => (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string' && x !== '');
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
/** A secret the partner did not choose: 32 base64url characters (192 bits). */
const newSecret = () => `whsec-${randomBytes(24).toString('base64url')}`;

/** A datetime-local value, read as UTC; undefined when empty, 400 when malformed. */
function utc(value: unknown, field: string): Date | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !LOCAL_TIME.test(value))
    throw validationFailed([{ field, message: `${field} must be a date and time (YYYY-MM-DDTHH:MM, UTC)` }]);
  return new Date(`${value}:00Z`);
}

/** The dashboard's webhook pages: endpoints and their settings, the delivery log, one delivery with its attempts. */
@ApiExcludeController()
@Public()
@RawResponse()
@Controller('dashboard')
export class DashboardWebhooksController {
  constructor(
    private readonly pages: DashboardPages,
    private readonly webhooks: WebhooksService,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly testEvents: WebhookTestEvents,
  ) {}

  @Get('webhooks')
  list(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.view(req, res, 'webhooks', async (s) => ({ title: 'Webhooks', body: webhooksView(s.csrfToken, await this.endpoints(s)) }));
  }

  @Post('webhooks')
  create(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.change(req, res, '/dashboard/webhooks', async (s) => {
      const form = formOf(req);
      const secret = text(form.secret) ?? newSecret();
      const dto = (await pipe.transform(
        { url: text(form.url) ?? '', events: listOf(form.events), secret },
        { type: 'body', metatype: CreateWebhookDto },
      )) as CreateWebhookDto;
      const created = await this.webhooks.create({ scope: s.scope, mode: s.scope.mode, plan: s.account.plan }, dto);
      return { title: 'Webhooks', status: 201, body: webhooksView(s.csrfToken, await this.endpoints(s), { id: created.id, secret }) };
    });
  }

  @Get('webhooks/:id')
  endpoint(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.view(req, res, 'webhooks', async (s) => {
      const w = await this.webhooks.get(s.scope, this.id(id));
      return { title: 'Webhook endpoint', body: webhookView(s.csrfToken, w) };
    });
  }

  @Post('webhooks/:id/events')
  saveEvents(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.update(req, res, id, { events: listOf(formOf(req).events) }, 'saved');
  }

  @Post('webhooks/:id/status')
  setStatus(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const status = formOf(req).status;
    return this.update(req, res, id, { status }, status === 'active' ? 'enabled' : 'disabled');
  }

  @Post('webhooks/:id/rotate-secret')
  rotate(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.change(req, res, `/dashboard/webhooks/${id}`, async (s) => {
      const form = formOf(req);
      const secret = text(form.secret) ?? newSecret();
      const hours = text(form.overlap_hours);
      const body = { secret, ...(hours === undefined ? {} : { previous_secret_expires_in: /^\d{1,3}$/.test(hours) ? Number(hours) * 3600 : hours }) };
      const dto = (await pipe.transform(body, { type: 'body', metatype: RotateSecretDto })) as RotateSecretDto;
      const w = await this.webhooks.rotateSecret(s.scope, this.id(id), dto);
      return { title: 'Secret rotated', body: rotatedView(w, secret) };
    });
  }

  @Post('webhooks/:id/test')
  sendTest(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.change(req, res, `/dashboard/webhooks/${id}`, async (s) => {
      await this.testEvents.send(s.scope, this.id(id));
      return `/dashboard/deliveries?endpoint=${id}&notice=test_sent`;
    });
  }

  @Post('webhooks/:id/recover')
  recover(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.change(req, res, `/dashboard/webhooks/${id}`, async (s) => {
      const since = utc(formOf(req).since, 'since');
      const dto = (await pipe.transform({ since: since?.toISOString() ?? '' }, { type: 'body', metatype: RecoverDeliveriesDto })) as RecoverDeliveriesDto;
      const { requeued } = await this.deliveries.recover(s.scope, this.id(id), dto);
      return {
        title: 'Recovery started',
        body: messageView(`${requeued} ${requeued === 1 ? 'delivery is' : 'deliveries are'} queued again.`, {
          href: `/dashboard/deliveries?endpoint=${id}`,
          label: 'See the deliveries',
        }),
      };
    });
  }

  @Get('webhooks/:id/delete')
  confirmDelete(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.view(req, res, 'webhooks', async (s) => ({
      title: 'Delete endpoint',
      body: deleteConfirmView(s.csrfToken, await this.webhooks.get(s.scope, this.id(id))),
    }));
  }

  @Post('webhooks/:id/delete')
  remove(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.change(req, res, `/dashboard/webhooks/${id}`, async (s) => {
      await this.webhooks.remove(s.scope, this.id(id));
      return '/dashboard/webhooks?notice=deleted';
    });
  }

  @Get('deliveries')
  log(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.view(req, res, 'deliveries', async (s) => {
      const q = req.query as Record<string, unknown>;
      const filters: DeliveryFilters = { status: text(q.status), event: text(q.event), endpoint: text(q.endpoint), from: text(q.from), to: text(q.to) };
      const problems = [
        filters.status && !DELIVERY_STATUSES.includes(filters.status)
          ? { field: 'status', message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` }
          : null,
        filters.event && ![...PUBLIC_EVENT_TYPES, TEST_EVENT].includes(filters.event as never)
          ? { field: 'event', message: 'event must be a known event type' }
          : null,
        filters.endpoint && !WEBHOOK_ID.test(filters.endpoint) ? { field: 'endpoint', message: 'endpoint must be a webhook endpoint id' } : null,
      ].filter((p) => p !== null);
      if (problems.length) throw validationFailed(problems);
      const list = await this.deliveries.search(
        s.scope,
        {
          status: filters.status as never,
          eventType: filters.event,
          subscriptionId: filters.endpoint,
          from: utc(filters.from, 'from'),
          to: utc(filters.to, 'to'),
        },
        { page: pageParam(q.page), limit: PAGE_SIZE },
      );
      return { title: 'Delivery log', body: deliveriesView(list, filters, await this.endpoints(s)) };
    });
  }

  @Get('webhooks/:id/deliveries/:delivery')
  delivery(@Param('id') id: string, @Param('delivery') deliveryId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.view(req, res, 'deliveries', async (s) => {
      const endpoint = await this.webhooks.get(s.scope, this.id(id));
      const d = await this.deliveries.get(s.scope, endpoint.id, deliveryId);
      return { title: `Delivery ${d.webhook_id}`, body: deliveryView(s.csrfToken, endpoint, d) };
    });
  }

  @Post('webhooks/:id/deliveries/:delivery/redeliver')
  redeliver(@Param('id') id: string, @Param('delivery') deliveryId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const back = `/dashboard/webhooks/${id}/deliveries/${deliveryId}`;
    return this.pages.change(req, res, back, async (s) => {
      await this.deliveries.redeliver(s.scope, this.id(id), deliveryId);
      return `${back}?notice=redelivered`;
    });
  }

  private update(req: Request, res: Response, id: string, body: object, notice: string): Promise<void> {
    return this.pages.change(req, res, `/dashboard/webhooks/${id}`, async (s) => {
      const dto = (await pipe.transform(body, { type: 'body', metatype: UpdateWebhookDto })) as UpdateWebhookDto;
      await this.webhooks.update({ scope: s.scope, mode: s.scope.mode, plan: s.account.plan }, this.id(id), dto);
      return `/dashboard/webhooks/${id}?notice=${notice}`;
    });
  }

  private async endpoints(s: DashboardSession) {
    return (await this.webhooks.list(s.scope, Object.assign(new ListWebhooksQuery(), { page: 1, limit: 100 }))).webhooks;
  }

  private id(id: string): string {
    if (!WEBHOOK_ID.test(id)) throw new DomainError('webhook_not_found');
    return id;
  }
}
