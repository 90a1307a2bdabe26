export interface SuccessEnvelope<T> {
  status: 'success';
  data: T;
}

export interface ErrorBody {
  status: 'error';
  error: { code: string; message: string; details?: unknown; request_id: string };
}

export function success<T>(data: T): SuccessEnvelope<T> {
  return { status: 'success', data };
}
