import { applyDecorators } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';

/** Documents the Idempotency-Key header that every POST accepts. */
export const ApiIdempotencyKey = () =>
  applyDecorators(
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      example: '5f0c1a2b-7d3e-4c8f-9a6b-2e1d0c9b8a7f',
      description:
        '1–255 characters. The first response is kept 24 h per partner, mode and key; a retry with the same body gets it again with `Idempotent-Replayed: true`, another body is 422 idempotency_key_reused, a retry while the first runs is 409 idempotency_request_in_progress.',
    }),
  );
