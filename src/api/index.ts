/**
 * The one face of src/api: the only module of the api layer that other layers import
 * (.dependency-cruiser.cjs, rule `api-one-face`). What is not named here is private to src/api.
 */
export { findReachableWorkspace, listReachableWorkspaces, resolveWorkspace, workspaceAccessDenied } from './authorize.js';
export { type Caller, type FileOutput, type ListQuery, type OperationHandler, type OperationInput, type OperationOutput } from './context.js';
export { sanitizeDisplayText } from './display-text.js';
export { ApiError, serviceUnavailable, validationError, type ApiErrorCode, type ServiceUnavailableReason, type ValidationIssue } from './errors.js';
export { digestArguments } from './confirmation/canonical-args.js';
export { formatBrl } from './confirmation/brl.js';
export { createConfirmationDescribers, type ConfirmationDescribers, type DescriberSources } from './confirmation/describe.js';
export { createConfirmationKeyReader } from './confirmation/key.js';
export { consumeNonce, purgeExpiredNonces, unavailableError as confirmationUnavailable, type NonceUse } from './confirmation/nonce-store.js';
export { confirmationNotGiven, consumeConfirmation, type ConsumptionOutcome, type ProofBinding } from './confirmation/proof.js';
export { CONFIRMATION_TTL_SECONDS, createNonce, openState, sealState, type ConfirmationClaims } from './confirmation/state.js';
export { type ConfirmationTarget, type DescribeTarget } from './confirmation/target.js';
export { DOWNLOAD_LINK_PARAMETER, DOWNLOAD_LINK_PATH, DOWNLOAD_LINK_TTL_SECONDS, createDownloadLinks, type DownloadGrant, type DownloadLinks, type IssuedLink } from './download-links.js';
export { createOperationService } from './execute.js';
export { askForApproval, type ApprovalAsk, type AskForApprovalDeps } from './money/ask.js';
export { computeShares } from './rules/apportionment.js';
export { classify, type RuleRow } from './rules/statements/classify.js';
export { readWorkspaceDate } from './rules/title-status.js';
export { STATEMENT_FILE_BOUNDS, parseOfxStatement } from './rules/statements/ofx.js';
export { claimConfirmationIssuer, type ApiBudget, type AuthorizeRequest, type BudgetDecision, type ConfirmationProof, type ExecuteDone, type OperationService, type PreparedCall, type WorkspaceHint } from './service.js';
export type { ExecuteRequest, ExecuteResult } from './service.js';
export { isUnsafeText } from './unsafe-text.js';
export { PREPARSED_BODY, boundedValidationError, compileSchema, findExcessUnknownKeys, toIssues } from './validation.js';
