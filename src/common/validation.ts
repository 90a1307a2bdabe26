import { ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldError, validationFailed } from './errors';

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    // Array items are named like enrollments[3].course_id.
    const field = !parent ? e.property : /^\d+$/.test(e.property) ? `${parent}[${e.property}]` : `${parent}.${e.property}`;
    if (e.constraints) {
      for (const [rule, message] of Object.entries(e.constraints)) {
        out.push({ field, message: rule === 'whitelistValidation' ? `${field} is not an allowed field` : message });
      }
    }
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

/** Global pipe: unknown fields are 400, values are transformed to the DTO's types, errors list each field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationFailed(flatten(errors)),
  });
}
