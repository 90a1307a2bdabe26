import { Module } from '@nestjs/common';
import { AdminBasicAuth } from './admin-basic-auth';
import { AdminQueuesBoard } from './admin-queues.board';

/** The Bull Board dashboard at /admin/queues (mounted by createApp, outside Nest routing). */
@Module({
  providers: [AdminBasicAuth, AdminQueuesBoard],
  exports: [AdminQueuesBoard],
})
export class AdminQueuesModule {}
