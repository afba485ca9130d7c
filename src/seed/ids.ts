/**
 * Fixed ids of the demo identity (organization, workspaces, persons, memberships), so tests and
 * docs can refer to them. Finance demo records use their own ids (src/seed/finance.ts).
 */

export const DEMO_ORG_ID = '00000000-0000-4000-8000-000000000001';
export const MATRIZ_WORKSPACE_ID = '00000000-0000-4000-8000-000000000011';
export const FILIAL_WORKSPACE_ID = '00000000-0000-4000-8000-000000000012';
export const MATRIZ_WORKSPACE_NAME = 'Matriz';
export const FILIAL_WORKSPACE_NAME = 'Filial';

export const ANA_PERSON_ID = '00000000-0000-4000-8000-000000000021';
export const BRUNO_PERSON_ID = '00000000-0000-4000-8000-000000000022';
export const CARLA_PERSON_ID = '00000000-0000-4000-8000-000000000023';

export const ANA_MEMBERSHIP_ID = '00000000-0000-4000-8000-000000000031';
export const BRUNO_MEMBERSHIP_ID = '00000000-0000-4000-8000-000000000032';
export const CARLA_MEMBERSHIP_ID = '00000000-0000-4000-8000-000000000033';

/** The demo's two pending approval requests in Matriz (src/seed/approvals.ts): one payable's settle, one settle batch, both asked by bruno. */
export const SETTLE_APPROVAL_REQUEST_ID = '00000000-0000-4000-8000-000000000041';
export const BATCH_APPROVAL_REQUEST_ID = '00000000-0000-4000-8000-000000000042';

/** Grouped form for tests: `DEMO.workspaces.matriz`, `DEMO.persons.ana`. */
export const DEMO = {
  organizationId: DEMO_ORG_ID,
  workspaces: { matriz: MATRIZ_WORKSPACE_ID, filial: FILIAL_WORKSPACE_ID },
  /** Each demo workspace's name by id (the shape of a membership's `workspaceNames`). */
  workspaceNames: new Map([[MATRIZ_WORKSPACE_ID, MATRIZ_WORKSPACE_NAME], [FILIAL_WORKSPACE_ID, FILIAL_WORKSPACE_NAME]]) as ReadonlyMap<string, string>,
  persons: { ana: ANA_PERSON_ID, bruno: BRUNO_PERSON_ID, carla: CARLA_PERSON_ID },
  emails: { ana: 'ana@demo.test', bruno: 'bruno@demo.test', carla: 'carla@demo.test' },
  approvalRequests: { settle: SETTLE_APPROVAL_REQUEST_ID, batch: BATCH_APPROVAL_REQUEST_ID },
} as const;
