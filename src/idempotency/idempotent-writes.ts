import { CallHandler, ExecutionContext, INestApplication, NestInterceptor, RequestMethod } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { Express, Request } from 'express';
import type { Observable } from 'rxjs';
import { IdempotencyInterceptor } from './idempotency.interceptor';

const APP_INTERCEPTOR_KEY = Symbol('idempotencyInterceptor');

/**
 * Stands on a route's metadata for the IdempotencyInterceptor of the application serving the request: route metadata
 * lives on controller classes, which every application built in one process (the tests build many) shares.
 */
class IdempotencyForRoute implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const interceptor = (context.switchToHttp().getRequest<Request>().app.locals as Record<symbol, IdempotencyInterceptor>)[APP_INTERCEPTOR_KEY];
    return interceptor.intercept(context, next);
  }
}

const forRoute = new IdempotencyForRoute();
const WRITE_METHODS = new Set<RequestMethod>([RequestMethod.POST, RequestMethod.ALL]);

/**
 * Puts the Idempotency-Key interceptor on every route a POST can reach, before the routes are registered (app.init).
 * Not a global interceptor: a route with any interceptor runs Nest's RxJS chain, which cost reads (which the
 * interceptor passes through untouched) about a tenth of their CPU.
 */
export function applyIdempotencyToWrites(app: INestApplication): void {
  ((app.getHttpAdapter().getInstance() as Express).locals as Record<symbol, IdempotencyInterceptor>)[APP_INTERCEPTOR_KEY] = app.get(IdempotencyInterceptor);
  const scanner = new MetadataScanner();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const prototype = (wrapper.metatype as { prototype?: object } | null)?.prototype;
      if (!prototype) continue;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = (prototype as Record<string, unknown>)[name] as object;
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        if (!WRITE_METHODS.has(Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod)) continue;
        const interceptors = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? [];
        // First of the method's own interceptors (a class's, like @RawResponse's marker, only mark the response); added
        // once per class however many applications are built.
        if (!interceptors.includes(forRoute)) Reflect.defineMetadata(INTERCEPTORS_METADATA, [forRoute, ...interceptors], handler);
      }
    }
  }
}
