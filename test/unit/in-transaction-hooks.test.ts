import { Injectable, InjectionToken, Module, OnModuleInit } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CoursesService } from '../../src/courses/courses.service';
import { EnrollmentsRepository } from '../../src/enrollment/enrollments.repository';
import { EnrollmentsService } from '../../src/enrollment/enrollments.service';
import { ProgressService } from '../../src/enrollment/progress.service';
import { InTransactionHooks, MissingHookHandlerError } from '../../src/events/hooks';
import { Tx, TransactionRunner } from '../../src/events/transaction-runner';
import { UsersService } from '../../src/users/users.service';

const completion = { enrollmentId: 1, userId: 2, courseId: 3, completedAt: new Date(), overrideQuiz: false };

describe('in-transaction hooks', () => {
  it('raising a hook nobody handles throws instead of silently returning nothing', async () => {
    const tx = new Tx({} as never, [], new InTransactionHooks());
    await expect(tx.raise('enrollment.completed', completion)).rejects.toThrow(MissingHookHandlerError);
  });

  it('raising a handled hook returns its handler’s output, given the same transaction', async () => {
    const hooks = new InTransactionHooks();
    const seen: Tx[] = [];
    hooks.register('enrollment.completed', async (tx) => {
      seen.push(tx);
      return { certificateId: 'CERT-1' };
    });
    const tx = new Tx({} as never, [], hooks);
    await expect(tx.raise('enrollment.completed', completion)).resolves.toEqual({ certificateId: 'CERT-1' });
    expect(seen).toEqual([tx]);
  });

  it('refuses a second handler for the same hook', () => {
    const hooks = new InTransactionHooks();
    hooks.register('enrollment.completed', async () => ({ certificateId: 'a' }));
    expect(() => hooks.register('enrollment.completed', async () => ({ certificateId: 'b' }))).toThrow(/already registered/);
  });
});

describe('an application that raises enrollment.completed', () => {
  const stub = (token: InjectionToken) => ({ provide: token, useValue: {} });
  const collaborators = [stub(TransactionRunner), stub(EnrollmentsRepository), stub(EnrollmentsService), stub(CoursesService), stub(UsersService)];

  it('refuses to boot without a module that handles it', async () => {
    const module = await Test.createTestingModule({ providers: [ProgressService, InTransactionHooks, ...collaborators] }).compile();
    await expect(module.init()).rejects.toThrow(/enrollment\.completed, which ProgressService raises/);
  });

  it('boots when a module registers the handler in its onModuleInit', async () => {
    @Injectable()
    class Handler implements OnModuleInit {
      constructor(private readonly hooks: InTransactionHooks) {}
      onModuleInit(): void {
        this.hooks.register('enrollment.completed', async () => ({ certificateId: 'CERT-2' }));
      }
    }
    @Module({ providers: [Handler, InTransactionHooks], exports: [InTransactionHooks] })
    class HandlingModule {}
    const module = await Test.createTestingModule({ imports: [HandlingModule], providers: [ProgressService, ...collaborators] }).compile();
    await expect(module.init()).resolves.toBeDefined();
    await module.close();
  });
});
