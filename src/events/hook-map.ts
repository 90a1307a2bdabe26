/**
 * Internal domain events handled synchronously inside the transaction that raises them,
 * for work that must commit or roll back together (completion → certificate).
 * The raising module knows only this map, not the handling module.
 */
export interface InTransactionHookMap {
  'enrollment.completed': {
    input: {
      enrollmentId: number;
      userId: number;
      courseId: number;
      completedAt: Date;
      overrideQuiz: boolean;
    };
    output: { certificateId: string };
  };
}

export type HookName = keyof InTransactionHookMap;
